// bfloat16 <-> float32 on the host, in plain C++ (no Halide). References and tests use these;
// lang/bf16_expr.h is the same arithmetic as Halide Exprs, for pipelines. Keeping two
// independent implementations lets each check the other.
#pragma once
#include <cstdint>
#include <cstring>

namespace solder {

inline float bf16_bits_to_f32(uint16_t b) {
    uint32_t u = uint32_t(b) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

// Round to nearest, ties to even. NaN stays NaN (quiet, sign kept); +-inf stay infinite; values
// above the largest bf16 round to infinity as IEEE rounding requires.
inline uint16_t f32_to_bf16_bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x0040u);
    uint32_t lsb = (u >> 16) & 1u;
    return uint16_t((u + 0x7fffu + lsb) >> 16);
}

inline float round_to_bf16(float f) { return bf16_bits_to_f32(f32_to_bf16_bits(f)); }

}  // namespace solder
