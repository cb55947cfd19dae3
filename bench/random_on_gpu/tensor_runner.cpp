// Runs each random tensor pipeline built by gen.cpp (Solder's CUDA library beside its
// every-Func-at-root host reference) at several sizes on random inputs, and compares every output
// within the family's tolerance for it (its compute type's: float32 1e-4 relative, float64 1e-7,
// bfloat16 storage 1e-2), integers exactly.
//   tensor_runner [SEED...]     (no seeds: every pipeline linked in)
// Prints one line per pipeline and size, and exits 1 if any differs or fails.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "HalideBuffer.h"
#include "HalideRuntime.h"
#include "bench/random_on_gpu/runner_support.h"

namespace {

using random_on_gpu::Buffer;
using random_on_gpu::is_bf16;

struct Size {
    int w, h, c, n;
};

// An output's shape, from its name (random_tensor_pipeline's naming; Halide adds "$N" to a name
// made again in one process, and a Tuple's elements are its name and a suffix).
std::vector<int> output_shape(std::string name, const Size &s, bool nhwc) {
    name = name.substr(0, name.find('$'));
    if (name.rfind("stats", 0) == 0) return {s.c, s.n};
    if (name.rfind("total", 0) == 0) return {};
    if (name.rfind("best", 0) == 0) return {s.w, s.h, s.n};
    return nhwc ? std::vector<int>{s.c, s.w, s.h, s.n} : std::vector<int>{s.w, s.h, s.c, s.n};
}

uint16_t float_to_bf16(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return uint16_t(u >> 16);
}

void fill(Buffer &b, uint32_t seed, float lo, float hi) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(lo, hi);
    const halide_type_t t = b.type();
    b.for_each_element([&](const int *pos) {
        void *p = b.raw_buffer()->address_of(pos);
        const float v = u(rng);
        if (t == halide_type_of<float>())
            *(float *)p = v;
        else if (t == halide_type_of<double>())
            *(double *)p = v;
        else
            *(uint16_t *)p = float_to_bf16(v);
    });
    b.set_host_dirty();
}

struct Inputs {
    Buffer x, mix, dw, affine, idx;
};

Inputs inputs(halide_type_t x_type, const Size &s, bool nhwc, uint32_t seed) {
    Inputs in;
    in.x = Buffer(x_type, nhwc ? std::vector<int>{s.c, s.w, s.h, s.n} : std::vector<int>{s.w, s.h, s.c, s.n});
    fill(in.x, seed, -1, 1);
    in.mix = Buffer(halide_type_of<float>(), {s.c, s.c});
    fill(in.mix, seed + 1, -1, 1);
    in.dw = Buffer(halide_type_of<float>(), {3, 3, s.c});
    fill(in.dw, seed + 2, 0, 0.25f);
    in.affine = Buffer(halide_type_of<float>(), {s.c, 2});
    fill(in.affine, seed + 3, 0.5f, 1.5f);
    in.idx = Buffer(halide_type_of<int32_t>(), {s.n});
    std::mt19937 rng(seed + 4);
    in.idx.for_each_element(
        [&](const int *pos) { *(int32_t *)in.idx.raw_buffer()->address_of(pos) = int(rng() % uint32_t(s.n + 2)) - 1; });
    in.idx.set_host_dirty();
    return in;
}

// Runs `fn` on the pipeline's inputs and parameters; returns its outputs (copied to the host) or an
// empty vector where it failed.
std::vector<Buffer> run(int (*fn)(void **), const halide_filter_metadata_t *md, Inputs &in, const Size &s, bool nhwc,
                        float gain, int taps, int *err) {
    const std::map<std::string, void *> named = {{"x", in.x.raw_buffer()},
                                                 {"mix", in.mix.raw_buffer()},
                                                 {"dw", in.dw.raw_buffer()},
                                                 {"affine", in.affine.raw_buffer()},
                                                 {"idx", in.idx.raw_buffer()},
                                                 {"gain", &gain},
                                                 {"taps", &taps}};
    return random_on_gpu::call_library(
        fn, md, named, [&](const std::string &name) { return output_shape(name, s, nhwc); }, err);
}

}  // namespace

int main(int argc, char **argv) {
    random_on_gpu::Tally tally(argc, argv);
    for (const Library &lib : kLibraries) {
        if (!tally.wants(lib.seed)) continue;
        const halide_filter_metadata_t *md = lib.metadata();
        const halide_type_t x_type = random_on_gpu::argument_type(md, "x");
        for (const Size &s :
             std::vector<Size>{{48, 32, 16, 2}, {7, 5, 3, 1}, {67, 9, 19, 1}, {1, 1, 1, 1}, {512, 256, 32, 2}}) {
            Inputs in = inputs(x_type, s, lib.nhwc, uint32_t(lib.seed * 13 + uint64_t(s.w * 7 + s.c)));
            const float gain = 0.5f + float(lib.seed % 3) * 0.5f;
            const int taps = 1 + int(lib.seed % 4);
            int e1 = 0, e2 = 0;
            std::vector<Buffer> got = run(lib.ours, md, in, s, lib.nhwc, gain, taps, &e1);
            std::vector<Buffer> want = run(lib.ref, md, in, s, lib.nhwc, gain, taps, &e2);
            const std::string verdict =
                random_on_gpu::verdict(e1, e2, got, want, random_on_gpu::value_at, [&](size_t o, double v) {
                    const halide_type_t t = got[o].type();
                    if (t.code == halide_type_int) return 0.0;
                    // The family's tolerance where gen.cpp wrote it (a float64 total of a float32
                    // tensor differs as float32 does), else the output type's.
                    const double tol = o < lib.tolerances.size() ? lib.tolerances[o]
                                       : is_bf16(t)              ? 1e-2
                                       : t.bits == 64            ? 1e-7
                                                                 : 1e-4;
                    return tol * (1 + std::abs(v));
                });
            tally.record("tensor_" + std::to_string(lib.seed) + " " + std::to_string(s.w) + "x" + std::to_string(s.h) +
                             "x" + std::to_string(s.c) + "x" + std::to_string(s.n),
                         verdict);
        }
    }
    return tally.finish();
}
