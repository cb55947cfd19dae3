// bf16 conversions: the host functions (core/bf16.h) against known bit patterns, and the Halide
// Exprs (lang/bf16_expr.h) against the host functions over many values, specials included.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "Halide.h"
#include "apps/ref_util.h"
#include "core/bf16.h"
#include "lang/bf16_expr.h"

using namespace solder;

namespace {
uint32_t bits_of(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}
float float_of(uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}
}  // namespace

TEST(Bf16Host, ExactValuesRoundTrip) {
    for (float f : {0.0f, -0.0f, 1.0f, -2.5f, 0.15625f, 65280.0f}) EXPECT_EQ(bf16_bits_to_f32(f32_to_bf16_bits(f)), f);
    EXPECT_EQ(f32_to_bf16_bits(1.0f), 0x3f80);
    EXPECT_EQ(f32_to_bf16_bits(-2.0f), 0xc000);
}

TEST(Bf16Host, RoundsToNearestTiesToEven) {
    // 1 + 2^-8 is exactly halfway between bf16 1.0 (even mantissa) and 1 + 2^-7: ties go to even.
    EXPECT_EQ(f32_to_bf16_bits(float_of(0x3f808000)), 0x3f80);
    // 1 + 3*2^-8 is halfway between 1+2^-7 (odd) and 1+2^-6 (even): rounds up to even.
    EXPECT_EQ(f32_to_bf16_bits(float_of(0x3f818000)), 0x3f82);
    // Just above halfway rounds up; just below rounds down.
    EXPECT_EQ(f32_to_bf16_bits(float_of(0x3f808001)), 0x3f81);
    EXPECT_EQ(f32_to_bf16_bits(float_of(0x3f807fff)), 0x3f80);
}

TEST(Bf16Host, SpecialValues) {
    const float inf = std::numeric_limits<float>::infinity();
    EXPECT_EQ(f32_to_bf16_bits(inf), 0x7f80);
    EXPECT_EQ(f32_to_bf16_bits(-inf), 0xff80);
    EXPECT_TRUE(std::isnan(bf16_bits_to_f32(f32_to_bf16_bits(std::nanf("")))));
    // A NaN whose payload sits only in the low bits must not round into infinity.
    uint16_t b = f32_to_bf16_bits(float_of(0x7f800001));
    EXPECT_TRUE(std::isnan(bf16_bits_to_f32(b))) << std::hex << b;
    EXPECT_EQ(b & 0x8000, 0);
    EXPECT_EQ(f32_to_bf16_bits(float_of(0xff800001)) & 0x8000, 0x8000);  // sign kept
    // The largest finite float overflows bf16's range when rounded: infinity.
    EXPECT_EQ(f32_to_bf16_bits(std::numeric_limits<float>::max()), 0x7f80);
    // The largest finite bf16 stays finite.
    EXPECT_EQ(f32_to_bf16_bits(float_of(0x7f7f0000)), 0x7f7f);
    // Subnormals keep their bits.
    EXPECT_EQ(f32_to_bf16_bits(float_of(0x00010000)), 0x0001);
}

TEST(Bf16Expr, MatchesHostOnManyValues) {
    // Inputs: random bit patterns (all classes of floats) plus the special cases above.
    const int n = 1 << 16;
    Halide::Buffer<uint32_t> in(n);
    Rng r(7);
    for (int i = 0; i < n; i++) in(i) = uint32_t(r.next());
    uint32_t specials[] = {0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001, 0xff800001, 0x7f7fffff,
                           0x3f808000, 0x3f818000, 0x3f807fff, 0x00000001, 0x80000000, 0};
    for (int i = 0; i < int(sizeof specials / 4); i++) in(i) = specials[i];

    Halide::Var x;
    Halide::Func enc, dec;
    enc(x) = lang::f32_to_bf16(Halide::reinterpret<float>(in(x)));
    dec(x) = Halide::reinterpret<uint32_t>(lang::bf16_to_f32(enc(x)));
    Halide::Buffer<uint16_t> e = enc.realize({n});
    Halide::Buffer<uint32_t> d = dec.realize({n});
    for (int i = 0; i < n; i++) {
        float f = float_of(in(i));
        uint16_t want = f32_to_bf16_bits(f);
        ASSERT_EQ(e(i), want) << "input bits 0x" << std::hex << in(i);
        ASSERT_EQ(d(i), bits_of(bf16_bits_to_f32(want))) << "input bits 0x" << std::hex << in(i);
    }
}
