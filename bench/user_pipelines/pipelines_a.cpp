// User pipelines, first set: window filters (inline sums and minima, weights in buffers, sizes
// from buffers), separable blurs, reductions over rows, columns and channels, scans, a histogram,
// a gather, a resize by a Param, a Tuple arg-min.
#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var x("x"), y("y"), c("c"), n("n");

// Softmax down the columns (over the outer dim) of 4096 x 2048 f32.
P colsoftmax() {
    ImageParam in(Float(32), 2, "in");
    RDom r(0, in.dim(1).extent(), "r");
    Func m("m"), e("e"), s("s"), out("out");
    m(x) = maximum(in(x, r));
    e(x, y) = exp(in(x, y) - m(x));
    s(x) = sum(e(x, r));
    out(x, y) = e(x, y) / s(x);
    in.set_estimates({{0, 4096}, {0, 2048}});
    out.set_estimates({{0, 4096}, {0, 2048}});
    return {{out}, {in}};
}
// Mean over the channels of an NCHW f32 tensor (a reduction over a middle dim).
P chmean() {
    ImageParam in(Float(32), 4, "in");
    RDom r(0, in.dim(2).extent(), "r");
    Func out("out");
    out(x, y, n) = sum(in(x, y, r, n)) / cast<float>(in.dim(2).extent());
    in.set_estimates({{0, 128}, {0, 128}, {0, 64}, {0, 16}});
    out.set_estimates({{0, 128}, {0, 128}, {0, 16}});
    return {{out}, {in}};
}
// A 4096-bin histogram of a 3840 x 2160 16-bit image's top 12 bits.
P hist4k() {
    ImageParam in(UInt(16), 2, "in");
    RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
    Func h("h");
    h(x) = 0;
    h(cast<int>(in(r.x, r.y) >> 4)) += 1;
    in.set_estimates({{0, 3840}, {0, 2160}});
    h.set_estimates({{0, 4096}});
    return {{h}, {in}};
}
// A 3 x 3 median of an 8-bit 4K image (a min/max network), edges repeated.
P median3() {
    ImageParam in(UInt(8), 2, "in");
    Func cl = BoundaryConditions::repeat_edge(in);
    Func mx("mx"), mn("mn"), md("md"), out("out");
    Expr a = cl(x, y - 1), b = cl(x, y), d = cl(x, y + 1);
    mx(x, y) = max(max(a, b), d);
    mn(x, y) = min(min(a, b), d);
    md(x, y) = max(min(a, b), min(max(a, b), d));
    Expr lo = max(max(mn(x - 1, y), mn(x, y)), mn(x + 1, y));
    Expr hi = min(min(mx(x - 1, y), mx(x, y)), mx(x + 1, y));
    Expr mid = max(min(md(x - 1, y), md(x, y)), min(max(md(x - 1, y), md(x, y)), md(x + 1, y)));
    out(x, y) = max(min(lo, mid), min(max(lo, mid), hi));
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in}};
}
// Rows of 4096 x 8192 f32 gathered through an index buffer (clamped), scaled.
P rowperm() {
    ImageParam in(Float(32), 2, "in"), idx(Int(32), 1, "idx");
    Func out("out");
    out(x, y) = in(x, clamp(idx(y), 0, in.dim(1).extent() - 1)) * 2.0f;
    in.set_estimates({{0, 4096}, {0, 8192}});
    idx.set_estimates({{0, 8192}});
    out.set_estimates({{0, 4096}, {0, 8192}});
    return {{out}, {in, idx}};
}
// A matrix-vector product, 8192 x 8192 f32.
P gemv() {
    ImageParam A(Float(32), 2, "A"), v(Float(32), 1, "v");
    RDom k(0, A.dim(0).extent(), "k");
    Func out("out");
    out(y) = sum(A(k, y) * v(k));
    A.set_estimates({{0, 8192}, {0, 8192}});
    v.set_estimates({{0, 8192}});
    out.set_estimates({{0, 8192}});
    return {{out}, {A, v}};
}
// The cumulative sum along each row of 4096 x 4096 f32 (a scan along the innermost dim).
P prefix_rows() {
    ImageParam in(Float(32), 2, "in");
    RDom r(1, in.dim(0).extent() - 1, "r");
    Func cs("cs");
    cs(x, y) = in(x, y);
    cs(r, y) = cs(r, y) + cs(r - 1, y);
    in.set_estimates({{0, 4096}, {0, 4096}});
    cs.set_estimates({{0, 4096}, {0, 4096}});
    return {{cs}, {in}};
}
// A bilinear resize of a planar RGB f32 image by a scalar Param (2x up at the estimate).
P resize() {
    ImageParam in(Float(32), 3, "in");
    Param<float> sc("sc");
    sc.set_estimate(0.5f);
    Func cl = BoundaryConditions::repeat_edge(in);
    Func out("out");
    Expr fx = (x + 0.5f) / sc - 0.5f, fy = (y + 0.5f) / sc - 0.5f;
    Expr ix = cast<int>(floor(fx)), iy = cast<int>(floor(fy));
    Expr wx = fx - ix, wy = fy - iy;
    out(x, y, c) =
        lerp(lerp(cl(ix, iy, c), cl(ix + 1, iy, c), wx), lerp(cl(ix, iy + 1, c), cl(ix + 1, iy + 1, c), wx), wy);
    in.set_estimates({{0, 1920}, {0, 1080}, {0, 3}});
    out.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    return {{out}, {in, sc}};
}
// A 5 x 5 weighted window of a 4K f32 image, its weights a buffer, edges repeated (inline sum).
P conv5() {
    ImageParam in(Float(32), 2, "in"), w(Float(32), 2, "w");
    Func cl = BoundaryConditions::repeat_edge(in);
    RDom k(0, 5, 0, 5, "k");
    Func out("out");
    out(x, y) = sum(cl(x + k.x - 2, y + k.y - 2) * w(k.x, k.y));
    in.set_estimates({{0, 3840}, {0, 2160}});
    w.set_estimates({{0, 5}, {0, 5}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in, w}};
}
// A separable 5-tap binomial blur of a 4K 16-bit RGB image, 32-bit sums.
P blur16() {
    ImageParam in(UInt(16), 3, "in");
    Func cl = BoundaryConditions::repeat_edge(in);
    Func bx("bx"), out("out");
    bx(x, y, c) =
        cast<uint32_t>(cl(x - 2, y, c)) + 4 * cl(x - 1, y, c) + 6 * cl(x, y, c) + 4 * cl(x + 1, y, c) + cl(x + 2, y, c);
    out(x, y, c) = cast<uint16_t>(
        (bx(x, y - 2, c) + 4 * bx(x, y - 1, c) + 6 * bx(x, y, c) + 4 * bx(x, y + 1, c) + bx(x, y + 2, c) + 128) >> 8);
    in.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    out.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    return {{out}, {in}};
}
// conv5 written as a reduction Func that is the output itself.
P conv5b() {
    ImageParam in(Float(32), 2, "in"), w(Float(32), 2, "w");
    Func cl = BoundaryConditions::repeat_edge(in);
    RDom k(0, 5, 0, 5, "k");
    Func conv("conv");
    conv(x, y) = 0.0f;
    conv(x, y) += cl(x + k.x - 2, y + k.y - 2) * w(k.x, k.y);
    in.set_estimates({{0, 3840}, {0, 2160}});
    w.set_estimates({{0, 5}, {0, 5}});
    conv.set_estimates({{0, 3840}, {0, 2160}});
    return {{conv}, {in, w}};
}
// conv5 written as a reduction Func, then a ReLU.
P conv5c() {
    ImageParam in(Float(32), 2, "in"), w(Float(32), 2, "w");
    Func cl = BoundaryConditions::repeat_edge(in);
    RDom k(0, 5, 0, 5, "k");
    Func conv("conv"), out("out");
    conv(x, y) = 0.0f;
    conv(x, y) += cl(x + k.x - 2, y + k.y - 2) * w(k.x, k.y);
    out(x, y) = max(conv(x, y), 0.0f);
    in.set_estimates({{0, 3840}, {0, 2160}});
    w.set_estimates({{0, 5}, {0, 5}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in, w}};
}
// A 3 x 3 box filter of a mirrored 4K f32 image.
P box3() {
    ImageParam in(Float(32), 2, "in");
    Func cl = BoundaryConditions::mirror_image(in);
    RDom r(-1, 3, -1, 3, "r");
    Func out("out");
    out(x, y) = sum(cl(x + r.x, y + r.y)) / 9.0f;
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in}};
}
// A 5 x 5 erosion (minimum) of an 8-bit 4K image.
P erode5() {
    ImageParam in(UInt(8), 2, "in");
    Func cl = BoundaryConditions::repeat_edge(in);
    RDom r(-2, 5, -2, 5, "r");
    Func out("out");
    out(x, y) = minimum(cl(x + r.x, y + r.y));
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in}};
}
// A depthwise 3 x 3 filter of 1920 x 1080 x 16 f32, one weight set per channel, zero outside.
P dw3() {
    ImageParam in(Float(32), 3, "in"), w(Float(32), 3, "w");
    Func cl = BoundaryConditions::constant_exterior(in, 0.0f);
    RDom k(0, 3, 0, 3, "k");
    Func out("out");
    out(x, y, c) = sum(cl(x + k.x - 1, y + k.y - 1, c) * w(k.x, k.y, c));
    in.set_estimates({{0, 1920}, {0, 1080}, {0, 16}});
    w.set_estimates({{0, 3}, {0, 3}, {0, 16}});
    out.set_estimates({{0, 1920}, {0, 1080}, {0, 16}});
    return {{out}, {in, w}};
}
// A separable 7-tap blur, each pass an inline `sum` over a 1-D RDom with its taps in a buffer.
P gauss7() {
    ImageParam in(Float(32), 2, "in"), k(Float(32), 1, "k");
    Func cl = BoundaryConditions::repeat_edge(in);
    RDom r(0, 7, "r");
    Func bx("bx"), out("out");
    bx(x, y) = sum(cl(x + r - 3, y) * k(r));
    out(x, y) = sum(bx(x, y + r - 3) * k(r));
    in.set_estimates({{0, 3840}, {0, 2160}});
    k.set_estimates({{0, 7}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in, k}};
}
// A 5 x 5 range-weighted mean (a bilateral filter's core): two window sums, the weights and the
// weighted values, divided.
P rangeblur() {
    ImageParam in(Float(32), 2, "in");
    Func cl = BoundaryConditions::mirror_image(in);
    RDom r(-2, 5, -2, 5, "r");
    Func wsum("wsum"), vsum("vsum"), out("out");
    Expr d = cl(x + r.x, y + r.y) - cl(x, y);
    Expr wt = exp(-d * d * 8.0f);
    wsum(x, y) = sum(wt);
    vsum(x, y) = sum(wt * cl(x + r.x, y + r.y));
    out(x, y) = vsum(x, y) / wsum(x, y);
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in}};
}
// A 3 x 3 colour matrix applied to a planar RGB image, as a sum over the input's channels.
P colormat() {
    ImageParam in(Float(32), 3, "in"), m(Float(32), 2, "m");
    RDom r(0, 3, "r");
    Func out("out");
    out(x, y, c) = sum(in(x, y, r) * m(r, c));
    in.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    m.set_estimates({{0, 3}, {0, 3}});
    out.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    return {{out}, {in, m}};
}
// A 2 x 2 box downsample (a pyramid level) with an RDom.
P down2() {
    ImageParam in(Float(32), 2, "in");
    RDom r(0, 2, 0, 2, "r");
    Func out("out");
    out(x, y) = sum(in(2 * x + r.x, 2 * y + r.y)) * 0.25f;
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 1920}, {0, 1080}});
    return {{out}, {in}};
}
// An integral image: a scan along x, then along y.
P integral() {
    ImageParam in(Float(32), 2, "in");
    RDom rx(1, in.dim(0).extent() - 1, "rx"), ry(1, in.dim(1).extent() - 1, "ry");
    Func sx("sx"), sxy("sxy");
    sx(x, y) = in(x, y);
    sx(rx, y) += sx(rx - 1, y);
    sxy(x, y) = sx(x, y);
    sxy(x, ry) += sxy(x, ry - 1);
    in.set_estimates({{0, 1920}, {0, 1080}});
    sxy.set_estimates({{0, 1920}, {0, 1080}});
    return {{sxy}, {in}};
}
// The position of each 3 x 3 window's minimum (a Tuple reduction), as an offset code.
P argmin3() {
    ImageParam in(Float(32), 2, "in");
    Func cl = BoundaryConditions::repeat_edge(in);
    RDom r(-1, 3, -1, 3, "r");
    Func am("am"), out("out");
    am(x, y) = {cl(x, y), 0};
    Expr v = cl(x + r.x, y + r.y);
    am(x, y) = {select(v < am(x, y)[0], v, am(x, y)[0]), select(v < am(x, y)[0], (r.y + 1) * 3 + r.x + 1, am(x, y)[1])};
    out(x, y) = am(x, y)[1];
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in}};
}
// conv5 with the window's size taken from the weights buffer (`RDom r(0, w.width(), 0, w.height())`).
P convp() {
    ImageParam in(Float(32), 2, "in"), w(Float(32), 2, "w");
    Func cl = BoundaryConditions::repeat_edge(in);
    RDom k(0, w.dim(0).extent(), 0, w.dim(1).extent(), "k");
    Func out("out");
    out(x, y) = sum(cl(x + k.x - w.dim(0).extent() / 2, y + k.y - w.dim(1).extent() / 2) * w(k.x, k.y));
    in.set_estimates({{0, 3840}, {0, 2160}});
    w.set_estimates({{0, 5}, {0, 5}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in, w}};
}

}  // namespace

void add_pipelines_a(Registry &r) {
    r.emplace("colsoftmax", colsoftmax);
    r.emplace("chmean", chmean);
    r.emplace("hist4k", hist4k);
    r.emplace("median3", median3);
    r.emplace("rowperm", rowperm);
    r.emplace("gemv", gemv);
    r.emplace("prefix_rows", prefix_rows);
    r.emplace("resize", resize);
    r.emplace("conv5", conv5);
    r.emplace("blur16", blur16);
    r.emplace("conv5b", conv5b);
    r.emplace("conv5c", conv5c);
    r.emplace("box3", box3);
    r.emplace("erode5", erode5);
    r.emplace("dw3", dw3);
    r.emplace("gauss7", gauss7);
    r.emplace("rangeblur", rangeblur);
    r.emplace("colormat", colormat);
    r.emplace("down2", down2);
    r.emplace("integral", integral);
    r.emplace("argmin3", argmin3);
    r.emplace("convp", convp);
}

}  // namespace user_pipelines
