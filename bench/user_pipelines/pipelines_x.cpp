// Twenty-fourth set: constraints and forms generators use. An RGBA image whose channel count and
// interleaved layout are declared on the buffers (`set_bounds`, `set_stride`), a histogram whose
// bins hold a Tuple (count and sum, for each bin's mean), an edge clamp at a region given by
// parameters, a uint8 blend written with lerp, absd and saturating casts, and a seam-carving cost
// table (a minimum-cost path down the rows, each row's costs from the row above: an RDom over
// both dims, as Halide asks of such a recurrence).
#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var x("x"), y("y"), c("c"), i("i");

// Premultiplied alpha: each colour channel times the alpha channel, on interleaved RGBA bytes.
P rgbaconst() {
    ImageParam in(UInt(8), 3, "in");
    Func out("out");
    Expr alpha = cast<uint16_t>(in(x, y, 3));
    out(x, y, c) = select(c == 3, in(x, y, c), cast<uint8_t>((cast<uint16_t>(in(x, y, c)) * alpha + 127) / 255));
    in.dim(0).set_stride(4);
    in.dim(2).set_stride(1).set_bounds(0, 4);
    out.output_buffer().dim(0).set_stride(4);
    out.output_buffer().dim(2).set_stride(1).set_bounds(0, 4);
    in.set_estimates({{0, 3840}, {0, 2160}, {0, 4}});
    out.set_estimates({{0, 3840}, {0, 2160}, {0, 4}});
    return {{out}, {in}};
}

// Each of 256 luminance bins' count and sum of the red channel, and the bins' mean red.
P tuplehist() {
    ImageParam in(UInt(8), 3, "in");
    RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
    Func luma("luma"), bins("bins"), mean("mean");
    luma(x, y) = cast<uint8_t>(
        (cast<uint16_t>(in(x, y, 0)) * 77 + cast<uint16_t>(in(x, y, 1)) * 150 + cast<uint16_t>(in(x, y, 2)) * 29) >> 8);
    bins(i) = Tuple(0, 0.0f);
    Expr b = luma(r.x, r.y);
    bins(b) = Tuple(bins(b)[0] + 1, bins(b)[1] + cast<float>(in(r.x, r.y, 0)));
    mean(i) = bins(i)[1] / cast<float>(max(bins(i)[0], 1));
    in.set_estimates({{0, 1920}, {0, 1080}, {0, 3}});
    mean.set_estimates({{0, 256}});
    return {{mean}, {in}};
}

// A 5 x 5 box of an image clamped to the region [x0, x0 + w) x [y0, y0 + h), parameters.
P paramclamp() {
    ImageParam in(Float(32), 2, "in");
    Param<int> x0("x0", 0), y0("y0", 0), w("w", 1024), h("h", 1024);
    Func clamped = BoundaryConditions::repeat_edge(in, {{x0, w}, {y0, h}});
    Func bx("bx"), out("out");
    RDom k(-2, 5, "k");
    bx(x, y) = sum(clamped(x + k, y)) / 5.0f;
    out(x, y) = sum(bx(x, y + k)) / 5.0f;
    in.set_estimates({{0, 2048}, {0, 2048}});
    x0.set_estimate(256);
    y0.set_estimate(256);
    w.set_estimate(1536);
    h.set_estimate(1536);
    out.set_estimates({{0, 2048}, {0, 2048}});
    return {{out}, {in, x0, y0, w, h}};
}

// Two uint8 images blended by a uint8 alpha (lerp), plus the saturated, amplified absolute
// difference of the two.
P u8blend() {
    ImageParam a(UInt(8), 3, "a"), b(UInt(8), 3, "b"), alpha(UInt(8), 2, "alpha");
    Func blend("blend"), diff("diff");
    blend(x, y, c) = lerp(a(x, y, c), b(x, y, c), alpha(x, y));
    diff(x, y, c) = saturating_cast<uint8_t>(cast<uint16_t>(absd(a(x, y, c), b(x, y, c))) * 4);
    a.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    b.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    alpha.set_estimates({{0, 3840}, {0, 2160}});
    blend.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    diff.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    return {{blend, diff}, {a, b, alpha}};
}

// Seam carving's cost table: each pixel's energy (a gradient magnitude) plus the least cost of
// the three pixels above it.
P seamcost() {
    ImageParam in(Float(32), 2, "in");
    Func clamped = BoundaryConditions::repeat_edge(in);
    Func energy("energy"), cost("cost");
    energy(x, y) = abs(clamped(x + 1, y) - clamped(x - 1, y)) + abs(clamped(x, y + 1) - clamped(x, y - 1));
    Expr w = in.dim(0).extent();
    RDom r(0, w, 1, in.dim(1).extent() - 1, "r");
    cost(x, y) = energy(x, y);
    Expr left = cost(max(r.x - 1, 0), r.y - 1), up = cost(r.x, r.y - 1), right = cost(min(r.x + 1, w - 1), r.y - 1);
    cost(r.x, r.y) = energy(r.x, r.y) + min(up, min(left, right));
    in.set_estimates({{0, 512}, {0, 512}});
    cost.set_estimates({{0, 512}, {0, 512}});
    return {{cost}, {in}};
}

}  // namespace

void add_pipelines_x(Registry &r) {
    r.emplace("rgbaconst", rgbaconst);
    r.emplace("tuplehist", tuplehist);
    r.emplace("paramclamp", paramclamp);
    r.emplace("u8blend", u8blend);
    r.emplace("seamcost", seamcost);
}

}  // namespace user_pipelines
