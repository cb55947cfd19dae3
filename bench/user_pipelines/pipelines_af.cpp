// Thirty-second set: six pipelines as users write them, none shaped like an earlier one. A point
// cloud splatted into a depth buffer keeping each pixel's nearest point and its index (a Tuple
// scatter whose order matters); an interleaved 8-bit RGBA image rotated by a Param angle with
// bilinear taps and a constant exterior, to floats; a 16-bit gamma curve built in the pipeline as a 65536-entry
// table, then sharpened; Sauvola's adaptive threshold over a Param radius; a motion blur along a
// Param direction with a Param count of bilinear taps; and a channels-last feature map sampled at a
// grid of coordinates (grid_sample with zero padding).
#include <functional>

#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var x("x"), y("y"), c("c"), i("i");

// The bilinear mix at (sx, sy) of the four pixels `at` gives around it.
Expr bilinear(const std::function<Expr(Expr, Expr)> &at, Expr sx, Expr sy) {
    Expr ix = cast<int>(floor(sx)), iy = cast<int>(floor(sy));
    Expr fx = sx - ix, fy = sy - iy;
    return lerp(lerp(at(ix, iy), at(ix + 1, iy), fx), lerp(at(ix, iy + 1), at(ix + 1, iy + 1), fx), fy);
}

// 1M points (x, y, depth in [-1, 1]) splatted into a size x size depth buffer: each pixel keeps the
// nearest point's depth and, on ties, the first such point's index (-1 where none lands).
P zbuffer() {
    ImageParam pts(Float(32), 2, "pts");
    Param<int> size("size");
    size.set_estimate(1024);
    RDom r(0, pts.dim(1).extent(), "r");
    Func zb("zb"), depth("depth"), id("id");
    zb(x, y) = Tuple(1e30f, -1);  // (Float(32).max() is infinity in Halide)
    Expr px = clamp(cast<int>((pts(0, r) * 0.5f + 0.5f) * cast<float>(size)), 0, size - 1);
    Expr py = clamp(cast<int>((pts(1, r) * 0.5f + 0.5f) * cast<float>(size)), 0, size - 1);
    Expr d = pts(2, r);
    Expr nearer = d < zb(px, py)[0];
    zb(px, py) = Tuple(select(nearer, d, zb(px, py)[0]), select(nearer, r, zb(px, py)[1]));
    depth(x, y) = zb(x, y)[0];
    id(x, y) = zb(x, y)[1];
    pts.set_estimates({{0, 3}, {0, 1 << 20}});
    depth.set_estimates({{0, 1024}, {0, 1024}});
    id.set_estimates({{0, 1024}, {0, 1024}});
    return {{depth, id}, {pts, size}};
}

// A 3840 x 2160 RGBA image, 8 bits a channel, channels innermost, rotated about its centre by
// `angle` radians: each output pixel a bilinear mix of the four input pixels around its source
// point, transparent black outside the input, as floats in [0, 1] (rounded back to 8 bits, a mix
// that lands within an ulp of a half would round either way on different devices).
P rotate_rgba() {
    ImageParam in(UInt(8), 3, "in");
    Param<float> angle("angle");
    angle.set_estimate(0.3f);
    Func cl = BoundaryConditions::constant_exterior(in, cast<uint8_t>(0));
    Func out("out");
    Expr cx = cast<float>(in.dim(1).extent()) / 2, cy = cast<float>(in.dim(2).extent()) / 2;
    Expr ca = cos(angle), sa = sin(angle);
    Expr sx = ca * (x - cx) + sa * (y - cy) + cx, sy = -sa * (x - cx) + ca * (y - cy) + cy;
    out(c, x, y) = bilinear([&](Expr u, Expr v) { return cast<float>(cl(c, u, v)); }, sx, sy) / 255.0f;
    in.dim(0).set_bounds(0, 4);
    in.dim(1).set_stride(4);
    out.output_buffer().dim(0).set_bounds(0, 4);
    out.output_buffer().dim(1).set_stride(4);
    in.set_estimates({{0, 4}, {0, 3840}, {0, 2160}});
    out.set_estimates({{0, 4}, {0, 3840}, {0, 2160}});
    return {{out}, {in, angle}};
}

// A 16-bit 4K image through a gamma curve (a 65536-entry table the pipeline computes from the
// Param), then sharpened: the curve's image plus `amount` times its difference from a 3 x 3 box
// blur of itself, edges repeated, clamped to 16 bits.
P gamma_sharpen() {
    ImageParam in(UInt(16), 2, "in");
    Param<float> gamma("gamma"), amount("amount");
    gamma.set_estimate(0.45f);
    amount.set_estimate(0.6f);
    Func curve("curve"), toned("toned"), blur("blur"), out("out");
    curve(i) = cast<uint16_t>(clamp(65535.0f * pow(cast<float>(i) / 65535.0f, gamma) + 0.5f, 0.0f, 65535.0f));
    Func cl = BoundaryConditions::repeat_edge(in);
    toned(x, y) = curve(cast<int>(cl(x, y)));
    RDom k(-1, 3, -1, 3, "k");
    blur(x, y) = sum(cast<float>(toned(x + k.x, y + k.y))) / 9.0f;
    Expr t = cast<float>(toned(x, y));
    out(x, y) = cast<uint16_t>(clamp(t + amount * (t - blur(x, y)) + 0.5f, 0.0f, 65535.0f));
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in, gamma, amount}};
}

// Sauvola's adaptive threshold of an 8-bit 4K image: the mean m and deviation s of a
// (2 radius + 1)^2 window (edges repeated), separable sums of the values and their squares; a
// pixel is white where it exceeds m (1 + k (s / 128 - 1)).
P sauvola() {
    ImageParam in(UInt(8), 2, "in");
    Param<int> radius("radius");
    Param<float> k("k");
    radius.set_estimate(7);
    k.set_estimate(0.2f);
    Func cl = BoundaryConditions::repeat_edge(in);
    RDom t(-radius, 2 * radius + 1, "t");
    Func v("v"), cols("cols"), box("box"), out("out");
    v(x, y) = cast<float>(cl(x, y));
    cols(x, y) = Tuple(0.0f, 0.0f);
    cols(x, y) = Tuple(cols(x, y)[0] + v(x, y + t), cols(x, y)[1] + v(x, y + t) * v(x, y + t));
    box(x, y) = Tuple(0.0f, 0.0f);
    box(x, y) = Tuple(box(x, y)[0] + cols(x + t, y)[0], box(x, y)[1] + cols(x + t, y)[1]);
    Expr n = cast<float>((2 * radius + 1) * (2 * radius + 1));
    Expr m = box(x, y)[0] / n;
    Expr s = sqrt(max(box(x, y)[1] / n - m * m, 0.0f));
    out(x, y) = select(v(x, y) > m * (1.0f + k * (s / 128.0f - 1.0f)), cast<uint8_t>(255), cast<uint8_t>(0));
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in, radius, k}};
}

// A motion blur of a planar RGB f32 4K image: the mean of `taps` bilinear samples along
// (dx, dy) pixels a step from each pixel, edges repeated.
P motion_blur() {
    ImageParam in(Float(32), 3, "in");
    Param<int> taps("taps");
    Param<float> dx("dx"), dy("dy");
    taps.set_estimate(16);
    dx.set_estimate(0.7f);
    dy.set_estimate(0.4f);
    Func cl = BoundaryConditions::repeat_edge(in);
    RDom r(0, taps, "r");
    Func acc("acc"), out("out");
    Expr sx = x + r * dx, sy = y + r * dy;
    acc(x, y, c) = 0.0f;
    acc(x, y, c) += bilinear([&](Expr u, Expr v) { return cl(u, v, c); }, sx, sy);
    out(x, y, c) = acc(x, y, c) / cast<float>(max(taps, 1));
    in.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    out.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    return {{out}, {in, taps, dx, dy}};
}

// grid_sample on a channels-last feature map: 64 channels of 256 x 256 x 8 images, each output
// pixel of 256 x 256 sampling its image bilinearly at the grid's (gx, gy) in [-1, 1] (corners
// aligned), zero outside.
P grid_sample() {
    ImageParam in(Float(32), 4, "in"), grid(Float(32), 4, "grid");
    Var n("n");
    Func cl = BoundaryConditions::constant_exterior(in, 0.0f);
    Func out("out");
    Expr sx = (grid(0, x, y, n) + 1.0f) * 0.5f * cast<float>(in.dim(1).extent() - 1);
    Expr sy = (grid(1, x, y, n) + 1.0f) * 0.5f * cast<float>(in.dim(2).extent() - 1);
    out(c, x, y, n) = bilinear([&](Expr u, Expr v) { return cl(c, u, v, n); }, sx, sy);
    in.set_estimates({{0, 64}, {0, 256}, {0, 256}, {0, 8}});
    grid.set_estimates({{0, 2}, {0, 256}, {0, 256}, {0, 8}});
    out.set_estimates({{0, 64}, {0, 256}, {0, 256}, {0, 8}});
    return {{out}, {in, grid}};
}

}  // namespace

void add_pipelines_af(Registry &r) {
    r.emplace("zbuffer", zbuffer);
    r.emplace("rotrgba", rotate_rgba);
    r.emplace("gammasharp", gamma_sharpen);
    r.emplace("sauvola", sauvola);
    r.emplace("motionblur", motion_blur);
    r.emplace("gridsample", grid_sample);
}

}  // namespace user_pipelines
