// User pipelines, nineteenth set: codec, resampling and statistics code as Halide users write it:
// an 8 x 8 block DCT of a grayscale image (a cosine table Func, two separable sums over each
// block), a horizontal resize to two thirds by a 6-tap tent kernel whose weights depend on the
// output's phase, max-unpooling (the values of a 2 x 2 max-pool scattered back to the positions its
// indices name), a 16 x 16 x 16 colour histogram of an 8-bit RGB image normalized to probabilities,
// column means of an f16 matrix accumulated in f32 and subtracted in f16, and the 7 x 7 local
// standard deviation of a 16-bit image.
#include <cmath>

#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var x("x"), y("y"), c("c"), u("u"), k("k"), i("i"), j("j"), f("f"), n("n"), p("p");

// DCT-II of each 8 x 8 block of a 3840 x 2160 float image (edges repeated past a partial block).
P dct8() {
    ImageParam in(Float(32), 2, "in");
    Func e = BoundaryConditions::repeat_edge(in);
    Func basis("basis"), rows("rows"), out("out");
    basis(u, k) = cos(float(M_PI) / 16.0f * cast<float>((2 * k + 1) * u));
    RDom r(0, 8, "r");
    rows(x, y) = sum(e(x / 8 * 8 + r, y) * basis(x % 8, r));
    out(x, y) = 0.25f * sum(rows(x, y / 8 * 8 + r) * basis(y % 8, r));
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in}};
}

// A horizontal resize of a 3840 x 2160 image to 2560 wide: output x samples input 1.5 x, six taps
// of a tent 1.5 input pixels wide each side, weights per phase (x % 2) normalized to sum to one.
P resize23() {
    ImageParam in(Float(32), 2, "in");
    Func e = BoundaryConditions::repeat_edge(in);
    Func w("w"), wsum("wsum"), out("out");
    RDom r(0, 6, "r");
    // Output x's centre is at input 1.5 x + 0.25; tap t reads input (3 x) / 2 - 2 + t.
    w(p, k) = max(0.0f, 1.0f - abs(cast<float>(k - 2) - 0.5f * cast<float>(p) - 0.25f) / 1.5f);
    wsum(p) = sum(w(p, r));
    out(x, y) = sum(e(x * 3 / 2 - 2 + r, y) * w(x % 2, r)) / wsum(x % 2);
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 2560}, {0, 2160}});
    return {{out}, {in}};
}

// Max-unpooling: 64 channels of 256 x 256 pooled values, each written back into its 2 x 2 window of
// a zeroed 512 x 512 output at the offset (0 to 3) its index gives.
P unpool() {
    ImageParam pooled(Float(32), 3, "pooled"), idx(Int(32), 3, "idx");
    Func out("out");
    out(x, y, c) = 0.0f;
    RDom r(0, pooled.dim(0).extent(), 0, pooled.dim(1).extent(), 0, pooled.dim(2).extent(), "r");
    Expr o = clamp(idx(r.x, r.y, r.z), 0, 3);
    out(r.x * 2 + o % 2, r.y * 2 + o / 2, r.z) = pooled(r.x, r.y, r.z);
    pooled.set_estimates({{0, 256}, {0, 256}, {0, 64}});
    idx.set_estimates({{0, 256}, {0, 256}, {0, 64}});
    out.set_estimates({{0, 512}, {0, 512}, {0, 64}});
    return {{out}, {pooled, idx}};
}

// The colour histogram of a planar 8-bit RGB 3840 x 2160 image in 16 x 16 x 16 bins, as the share
// of the image's pixels in each bin.
P hist3d() {
    ImageParam in(UInt(8), 3, "in");
    Func h("h"), out("out");
    h(i, j, k) = 0;
    RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
    h(cast<int>(in(r.x, r.y, 0) / 16), cast<int>(in(r.x, r.y, 1) / 16), cast<int>(in(r.x, r.y, 2) / 16)) += 1;
    out(i, j, k) = cast<float>(h(i, j, k)) / cast<float>(in.dim(0).extent() * in.dim(1).extent());
    in.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    out.set_estimates({{0, 16}, {0, 16}, {0, 16}});
    return {{out}, {in}};
}

// An f16 matrix of 4096 features by 8192 samples centred per feature: each feature's mean over the
// samples summed in f32, the centred values stored in f16.
P colcenter16() {
    ImageParam xs(Float(16), 2, "x");
    RDom r(0, xs.dim(1).extent(), "r");
    Func mean("mean"), out("out");
    mean(f) = sum(cast<float>(xs(f, r))) / cast<float>(xs.dim(1).extent());
    out(f, n) = cast<float16_t>(cast<float>(xs(f, n)) - mean(f));
    xs.set_estimates({{0, 4096}, {0, 8192}});
    out.set_estimates({{0, 4096}, {0, 8192}});
    return {{out}, {xs}};
}

// The standard deviation of each 7 x 7 window of a 16-bit 3840 x 2160 image (edges mirrored), from
// the window's sums of values and of squares, saturated back to 16 bits.
P localstd() {
    ImageParam in(UInt(16), 2, "in");
    Func e = BoundaryConditions::mirror_image(in);
    Func s1("s1"), s2("s2"), out("out");
    RDom r(-3, 7, -3, 7, "r");
    Expr v = cast<float>(e(x + r.x, y + r.y));
    s1(x, y) = sum(v);
    s2(x, y) = sum(v * v);
    Expr m = s1(x, y) / 49.0f;
    out(x, y) = cast<uint16_t>(min(sqrt(max(s2(x, y) / 49.0f - m * m, 0.0f)), 65535.0f));
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in}};
}

}  // namespace

void add_pipelines_s(Registry &r) {
    r.emplace("dct8", dct8);
    r.emplace("resize23", resize23);
    r.emplace("unpool", unpool);
    r.emplace("hist3d", hist3d);
    r.emplace("colcenter16", colcenter16);
    r.emplace("localstd", localstd);
}

}  // namespace user_pipelines
