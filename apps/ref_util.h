// Helpers for app inputs and references: deterministic random numbers and typed raw access.
// Halide-free: references are plain loops over row-major arrays.
#pragma once
#include <cmath>
#include <cstdint>

#include "apps/app_spec.h"
#include "core/bf16.h"

namespace solder {

// splitmix64: small, fast, and the same on every machine.
struct Rng {
    uint64_t s;
    explicit Rng(uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 1) {}
    uint64_t next() {
        uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    double uniform() { return (next() >> 11) * (1.0 / 9007199254740992.0); }  // [0, 1)
    double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
    double normal() {  // Box-Muller
        double u1 = uniform(), u2 = uniform();
        if (u1 < 1e-300) u1 = 1e-300;
        return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    }
    int64_t integer(int64_t lo, int64_t hi) { return lo + int64_t(next() % uint64_t(hi - lo)); }
};

template<typename T> T *data_as(HostBuffer &b) { return static_cast<T *>(b.data()); }
template<typename T> const T *data_as(const HostBuffer &b) { return static_cast<const T *>(b.data()); }
inline int64_t numel(const HostBuffer &b) { return int64_t(b.number_of_elements()); }

// Fill with N(0, scale^2) in the buffer's type (BF16 rounded from f32); ints uniform in [lo, hi).
void fill_normal(HostBuffer &b, DType t, uint64_t seed, double scale = 1.0);
void fill_uniform(HostBuffer &b, DType t, uint64_t seed, double lo, double hi);

// Reads element i as double (BF16 decoded), and stores a double rounded to the buffer's type.
double load_as_double(const HostBuffer &b, DType t, int64_t i);
void store_from_double(HostBuffer &b, DType t, int64_t i, double v);

}  // namespace solder
