// Thirty-fourth set: six pipelines written with Halide's less common operators, none shaped like an
// earlier one. A fixed-point unsharp mask of an 8-bit image in the style of mobile camera code
// (widening and rounding intrinsics, saturating casts); film grain from Halide's seeded random
// numbers, written with lambda and likely; row sums with Kahan's compensation under strict_float;
// an FNV-1a hash of each row in 64-bit integers with its population count; f32 rounded to
// bfloat16 by bit manipulation (reinterpret, is_nan) with each row's largest error; and a
// logarithmic 8-bit encoding of 16-bit samples by count_leading_zeros, with the codes' histogram.
#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var x("x"), y("y"), c("c"), b("b");

// A fixed-point unsharp mask of an 8-bit 4K image: a 5 x 5 binomial blur in 16 and 32 bits built
// from widening adds and multiplies, rounded back by a shift; the detail (image minus blur)
// boosted by a Param in Q4 and added back with saturation; a soft copy, the halving average of the
// image and its blur, as a second output.
P fixed_sharpen() {
    ImageParam in(UInt(8), 2, "in");
    Param<uint8_t> amount("amount");
    amount.set_estimate(24);
    Func cl = BoundaryConditions::mirror_image(in);
    Func v("v"), blur("blur"), sharp("sharp"), soft("soft");
    Expr a = widening_add(cl(x, y - 2), cl(x, y + 2));
    Expr m = widening_add(cl(x, y - 1), cl(x, y + 1));
    v(x, y) = a + m * 4 + widening_mul(cl(x, y), cast<uint8_t>(6));  // at most 16 * 255
    Expr h = widening_add(v(x - 2, y), v(x + 2, y)) + widening_add(v(x - 1, y), v(x + 1, y)) * 4 +
             widening_mul(v(x, y), cast<uint16_t>(6));
    blur(x, y) = saturating_cast<uint8_t>(rounding_shift_right(h, 8));
    Expr detail = cast<int16_t>(in(x, y)) - cast<int16_t>(blur(x, y));
    Expr boost = rounding_shift_right(widening_mul(detail, cast<int16_t>(amount)), 4);
    sharp(x, y) = saturating_cast<uint8_t>(cast<int32_t>(in(x, y)) + boost);
    soft(x, y) = halving_add(in(x, y), blur(x, y));
    in.set_estimates({{0, 3840}, {0, 2160}});
    sharp.set_estimates({{0, 3840}, {0, 2160}});
    soft.set_estimates({{0, 3840}, {0, 2160}});
    return {{sharp, soft}, {in, amount}};
}

// Film grain on a planar RGB f32 4K image: a uniform random number per pixel from a Param seed
// (Halide's random_float, a hash of the pixel and the seed), softened by a 3 x 3 binomial
// blur, added to each channel in proportion to the pixel's luma (more grain in the mid-tones),
// clamped to [0, 1]. The grain is a lambda; the edges clamp their coordinates, marked likely.
P film_grain() {
    ImageParam in(Float(32), 3, "in");
    Param<int> seed("seed");
    Param<float> amount("amount");
    seed.set_estimate(7);
    amount.set_estimate(0.08f);
    Func grain = lambda(x, y, random_float(seed) - 0.5f);
    Expr w = in.dim(0).extent(), hgt = in.dim(1).extent();
    Func edge("edge"), soft("soft"), out("out");
    edge(x, y) = grain(clamp(likely(x), 0, w - 1), clamp(likely(y), 0, hgt - 1));
    soft(x, y) = (edge(x - 1, y - 1) + 2 * edge(x, y - 1) + edge(x + 1, y - 1) + 2 * edge(x - 1, y) + 4 * edge(x, y) +
                  2 * edge(x + 1, y) + edge(x - 1, y + 1) + 2 * edge(x, y + 1) + edge(x + 1, y + 1)) /
                 16.0f;
    Expr luma = 0.2126f * in(x, y, 0) + 0.7152f * in(x, y, 1) + 0.0722f * in(x, y, 2);
    Expr weight = 4.0f * clamp(luma, 0.0f, 1.0f) * (1.0f - clamp(luma, 0.0f, 1.0f));
    out(x, y, c) = clamp(in(x, y, c) + amount * weight * soft(x, y), 0.0f, 1.0f);
    in.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    out.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    return {{out}, {in, seed, amount}};
}

// Each row's sum of an f32 8192 x 4096 matrix with Kahan's compensation: a Tuple (sum, lost
// low-order part) updated point by point along the row, kept exact by strict_float, then the
// row's mean and the mean of its squares (the latter summed plainly) as two outputs.
P kahan_rows() {
    ImageParam in(Float(32), 2, "in");
    RDom r(0, in.dim(0).extent(), "r");
    Func acc("acc"), sq("sq"), mean("mean"), meansq("meansq");
    acc(y) = Tuple(0.0f, 0.0f);
    Expr next = strict_float(in(r, y) - acc(y)[1]);
    Expr t = strict_float(acc(y)[0] + next);
    acc(y) = Tuple(t, strict_float((t - acc(y)[0]) - next));
    sq(y) = 0.0f;
    sq(y) += in(r, y) * in(r, y);
    Expr n = cast<float>(in.dim(0).extent());
    mean(y) = acc(y)[0] / n;
    meansq(y) = sq(y) / n;
    in.set_estimates({{0, 8192}, {0, 4096}});
    mean.set_estimates({{0, 4096}});
    meansq.set_estimates({{0, 4096}});
    return {{mean, meansq}, {in}};
}

// The 64-bit FNV-1a hash of each row of an 8-bit 4096 x 4096 image (a serial fold along the row:
// xor, then multiply by the FNV prime, in uint64), its population count and the number of
// leading zero bits of its high half, as three outputs.
P row_hash() {
    ImageParam in(UInt(8), 2, "in");
    RDom r(0, in.dim(0).extent(), "r");
    Func hash("hash"), ones("ones"), lead("lead");
    hash(y) = Expr(uint64_t(14695981039346656037ull));
    hash(y) = (hash(y) ^ cast<uint64_t>(in(r, y))) * Expr(uint64_t(1099511628211ull));
    ones(y) = cast<int32_t>(popcount(hash(y)));
    lead(y) = cast<int32_t>(count_leading_zeros(cast<uint32_t>(hash(y) >> 32)));
    in.set_estimates({{0, 4096}, {0, 4096}});
    hash.set_estimates({{0, 4096}});
    ones.set_estimates({{0, 4096}});
    lead.set_estimates({{0, 4096}});
    return {{hash, ones, lead}, {in}};
}

// An f32 4K image rounded to bfloat16 by its bits: the float reinterpreted as uint32, rounded to
// nearest even at bit 16 (NaNs to the quiet NaN), kept as uint16; and each row's largest
// difference between the image and its rounding read back as f32.
P bf16_round() {
    ImageParam in(Float(32), 2, "in");
    Func bits("bits"), back("back"), err("err");
    Expr u = reinterpret<uint32_t>(in(x, y));
    Expr lsb = (u >> 16) & 1;
    Expr rounded = cast<uint16_t>((u + 0x7fff + lsb) >> 16);
    bits(x, y) = select(is_nan(in(x, y)), cast<uint16_t>(0x7fc0), rounded);
    back(x, y) = reinterpret<float>(cast<uint32_t>(bits(x, y)) << 16);
    RDom r(0, in.dim(0).extent(), "r");
    err(y) = maximum(abs(back(r, y) - in(r, y)));
    in.set_estimates({{0, 3840}, {0, 2160}});
    bits.set_estimates({{0, 3840}, {0, 2160}});
    err.set_estimates({{0, 2160}});
    return {{bits, err}, {in}};
}

// A logarithmic 8-bit code of each 16-bit sample of a 4096 x 4096 image, as a float with a 4-bit
// exponent and a 4-bit mantissa: the exponent from count_leading_zeros, the mantissa the four
// bits below the leading one (values below 16 kept as they are), and the 256 codes' histogram.
P log_encode() {
    ImageParam in(UInt(16), 2, "in");
    Func code("code"), hist("hist");
    Expr v = in(x, y);
    Expr e = 16 - cast<int32_t>(count_leading_zeros(v));  // bit length: 0 to 16
    Expr shift = max(e - 5, 0);
    Expr mant = cast<int32_t>(v >> cast<uint16_t>(shift)) & 15;
    code(x, y) = cast<uint8_t>(select(v < 16, cast<int32_t>(v), min((shift + 1) * 16 + mant, 255)));
    RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
    hist(b) = 0;
    hist(cast<int32_t>(code(r.x, r.y))) += 1;
    in.set_estimates({{0, 4096}, {0, 4096}});
    code.set_estimates({{0, 4096}, {0, 4096}});
    hist.set_estimates({{0, 256}});
    return {{code, hist}, {in}};
}

}  // namespace

void add_pipelines_ah(Registry &r) {
    r.emplace("fixsharp", fixed_sharpen);
    r.emplace("grain", film_grain);
    r.emplace("kahanrows", kahan_rows);
    r.emplace("rowhash", row_hash);
    r.emplace("bf16round", bf16_round);
    r.emplace("logenc", log_encode);
}

}  // namespace user_pipelines
