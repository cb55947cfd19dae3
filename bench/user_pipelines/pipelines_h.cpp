// User pipelines, eighth set: less common Halide features as users reach for them: a lookup
// table read through unsafe_promise_clamped, a boolean mask dilated by a window (a bool Func
// read through a stencil), 64-bit row sums of a 16-bit image, a pure Tuple of an int and a float
// (a 3 x 3 arg-max with its value) as two outputs, lerp and mux in a colour grade, and an image
// cropped at a Param offset (reads at a run-time shift), and a separable blur of an interleaved
// RGB image.
#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var x("x"), y("y"), c("c"), i("i");

// A 4K 16-bit image through a 4096-entry tone curve (an input) at its top 12 bits, the index
// promised in range instead of clamped.
P lutpromise() {
    ImageParam in(UInt(16), 2, "in"), lut(Float(32), 1, "lut");
    Func out("out");
    Expr idx = unsafe_promise_clamped(cast<int>(in(x, y) >> 4), 0, 4095);
    out(x, y) = lut(idx) * 0.5f + cast<float>(in(x, y)) / 131070.0f;
    in.set_estimates({{0, 3840}, {0, 2160}});
    lut.set_estimates({{0, 4096}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in, lut}};
}
// A threshold mask of a 4K f32 image (a bool Func) dilated by a 5 x 5 window, then the image kept
// where the dilated mask is set.
P maskdilate() {
    ImageParam in(Float(32), 2, "in");
    Param<float> level("level");
    level.set_estimate(0.9f);
    Func cl = BoundaryConditions::repeat_edge(in);
    Func mask("mask"), grown("grown"), out("out");
    mask(x, y) = cl(x, y) > level;
    RDom r(-2, 5, -2, 5, "r");
    grown(x, y) = maximum(select(mask(x + r.x, y + r.y), 1, 0)) > 0;
    out(x, y) = select(grown(x, y), in(x, y), 0.0f);
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in, level}};
}
// Each row's sum of squares of a 4096 x 4096 16-bit image in 64-bit integers, as a float.
P sum64() {
    ImageParam in(UInt(16), 2, "in");
    RDom r(0, in.dim(0).extent(), "r");
    Func acc("acc"), out("out");
    acc(y) = cast<int64_t>(0);
    Expr v = cast<int64_t>(in(r, y));
    acc(y) += v * v;
    out(y) = cast<float>(acc(y)) / 1e9f;
    in.set_estimates({{0, 4096}, {0, 4096}});
    out.set_estimates({{0, 4096}});
    return {{out}, {in}};
}
// The position (0 to 8) and value of each pixel's 3 x 3 neighbourhood maximum of a 1920 x 1080
// f32 image: a pure Tuple of an int and a float, both outputs.
P tuplemix() {
    ImageParam in(Float(32), 2, "in");
    Func cl = BoundaryConditions::mirror_image(in);
    Func best("best");
    Expr v[9];
    for (int k = 0; k < 9; k++) v[k] = cl(x + k % 3 - 1, y + k / 3 - 1);
    Expr bi = 0, bv = v[0];
    for (int k = 1; k < 9; k++) {
        bi = select(v[k] > bv, k, bi);
        bv = max(bv, v[k]);
    }
    best(x, y) = Tuple(bi, bv);
    in.set_estimates({{0, 1920}, {0, 1080}});
    best.set_estimates({{0, 1920}, {0, 1080}});
    return {{best}, {in}};
}
// A colour grade of a planar f32 RGB 4K image: each channel lerped toward its own tint by a Param
// weight, the channels picked with mux.
P lerpmux() {
    ImageParam in(Float(32), 3, "in");
    Param<float> weight("weight");
    weight.set_estimate(0.3f);
    Func out("out");
    Expr tint = mux(c, {0.9f, 0.7f, 0.4f});
    Expr luma = 0.299f * in(x, y, 0) + 0.587f * in(x, y, 1) + 0.114f * in(x, y, 2);
    out(x, y, c) = lerp(in(x, y, c), tint * luma, weight);
    in.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    out.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    return {{out}, {in, weight}};
}
// A 1920 x 1080 crop of a 4K f32 image at a Param offset, sharpened by a 3 x 3 Laplacian.
P cropshift() {
    ImageParam in(Float(32), 2, "in");
    Param<int> ox("ox"), oy("oy");
    ox.set_estimate(960);
    oy.set_estimate(540);
    Func crop("crop"), out("out");
    crop(x, y) = in(clamp(x + ox, 0, in.dim(0).extent() - 1), clamp(y + oy, 0, in.dim(1).extent() - 1));
    out(x, y) = 5.0f * crop(x, y) - crop(x - 1, y) - crop(x + 1, y) - crop(x, y - 1) - crop(x, y + 1);
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 1920}, {0, 1080}});
    return {{out}, {in, ox, oy}};
}

// A separable 5-tap binomial blur of an interleaved 8-bit RGB 4K image (the channel innermost),
// along x and then along y, rounded back to 8 bits.
P blurrgb() {
    ImageParam in(UInt(8), 3, "in");
    Func cl = BoundaryConditions::repeat_edge(in);
    Func bx("bx"), out("out");
    auto taps = [](Expr a, Expr b, Expr m, Expr d, Expr e) { return a + 4 * b + 6 * m + 4 * d + e; };
    Expr v = cast<uint16_t>(cl(c, x, y));
    bx(c, x, y) = taps(cast<uint16_t>(cl(c, x - 2, y)), cast<uint16_t>(cl(c, x - 1, y)), v,
                       cast<uint16_t>(cl(c, x + 1, y)), cast<uint16_t>(cl(c, x + 2, y)));
    Expr s = taps(cast<uint32_t>(bx(c, x, y - 2)), cast<uint32_t>(bx(c, x, y - 1)), cast<uint32_t>(bx(c, x, y)),
                  cast<uint32_t>(bx(c, x, y + 1)), cast<uint32_t>(bx(c, x, y + 2)));
    out(c, x, y) = cast<uint8_t>((s + 128) / 256);
    in.set_estimates({{0, 3}, {0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3}, {0, 3840}, {0, 2160}});
    return {{out}, {in}};
}

}  // namespace

void add_pipelines_h(Registry &r) {
    r.emplace("blurrgb", blurrgb);
    r.emplace("lutpromise", lutpromise);
    r.emplace("maskdilate", maskdilate);
    r.emplace("sum64", sum64);
    r.emplace("tuplemix", tuplemix);
    r.emplace("lerpmux", lerpmux);
    r.emplace("cropshift", cropshift);
}

}  // namespace user_pipelines
