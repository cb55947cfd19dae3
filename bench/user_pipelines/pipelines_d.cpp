// User pipelines, fourth set: a softmax across channels at each pixel, a Gaussian whose taps are
// computed from a Param sigma over a Param radius, a morphological gradient (two window
// reductions read by one output), a transposed 16-bit image, a gather through two index buffers,
// rows normalized by their maximum and then blurred, in-place updates without an RDom, and a Bayer
// mosaic sampled with parity selects.
#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var x("x"), y("y"), c("c"), i("i");

// A softmax across the 16 channels of each pixel of a 1920 x 1080 x 16 f32 image.
P chsoftmax() {
    ImageParam in(Float(32), 3, "in");
    RDom r(0, in.dim(2).extent(), "r");
    Func mx("mx"), den("den"), out("out");
    mx(x, y) = maximum(in(x, y, r));
    den(x, y) = sum(exp(in(x, y, r) - mx(x, y)));
    out(x, y, c) = exp(in(x, y, c) - mx(x, y)) / den(x, y);
    in.set_estimates({{0, 1920}, {0, 1080}, {0, 16}});
    out.set_estimates({{0, 1920}, {0, 1080}, {0, 16}});
    return {{out}, {in}};
}
// A separable Gaussian blur whose taps come from a Param sigma over a Param radius, normalized by
// their sum (a table Func), edges repeated.
P gaussr() {
    ImageParam in(Float(32), 2, "in");
    Param<float> sigma("sigma");
    Param<int> radius("radius");
    sigma.set_estimate(2.0f);
    radius.set_estimate(6);
    Func cl = BoundaryConditions::repeat_edge(in);
    RDom k(-radius, 2 * radius + 1, "k");
    Func w("w"), norm("norm"), bx("bx"), out("out");
    w(i) = exp(-cast<float>(i * i) / (2.0f * sigma * sigma));
    norm() = sum(w(k));
    bx(x, y) = sum(cl(x + k, y) * w(k)) / norm();
    out(x, y) = sum(bx(x, y + k) * w(k)) / norm();
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in, sigma, radius}};
}
// A 3 x 3 morphological gradient of an 8-bit 4K image: the window's maximum minus its minimum.
P morphgrad() {
    ImageParam in(UInt(8), 2, "in");
    Func cl = BoundaryConditions::repeat_edge(in);
    RDom r(-1, 3, -1, 3, "r");
    Func out("out");
    out(x, y) = maximum(cl(x + r.x, y + r.y)) - minimum(cl(x + r.x, y + r.y));
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in}};
}
// A 16-bit 4096 x 4096 image transposed and converted to f32 in [0, 1].
P transpose16() {
    ImageParam in(UInt(16), 2, "in");
    Func out("out");
    out(x, y) = cast<float>(in(y, x)) / 65535.0f;
    in.set_estimates({{0, 4096}, {0, 4096}});
    out.set_estimates({{0, 4096}, {0, 4096}});
    return {{out}, {in}};
}
// Rows of a 1024-wide table gathered through a permutation of a token list (two levels of
// indirection), scaled by a per-token weight.
P gather2() {
    ImageParam table(Float(32), 2, "table"), perm(Int(32), 1, "perm"), ids(Int(32), 1, "ids"), wt(Float(32), 1, "wt");
    Var d("d"), t("t");
    Func out("out");
    Expr p = clamp(perm(clamp(ids(t), 0, perm.dim(0).extent() - 1)), 0, table.dim(1).extent() - 1);
    out(d, t) = table(d, p) * wt(t);
    table.set_estimates({{0, 1024}, {0, 32768}});
    perm.set_estimates({{0, 32768}});
    ids.set_estimates({{0, 16384}});
    wt.set_estimates({{0, 16384}});
    out.set_estimates({{0, 1024}, {0, 16384}});
    return {{out}, {table, perm, ids, wt}};
}
// Each row of a 4K f32 image divided by its largest magnitude, then a 3 x 3 box blur.
P rownormblur() {
    ImageParam in(Float(32), 2, "in");
    RDom r(0, in.dim(0).extent(), "r");
    Func mx("mx"), nrm("nrm"), out("out");
    mx(y) = maximum(abs(in(r, y))) + 1e-6f;
    nrm(x, y) = in(clamp(x, 0, in.dim(0).extent() - 1), clamp(y, 0, in.dim(1).extent() - 1)) /
                mx(clamp(y, 0, in.dim(1).extent() - 1));
    out(x, y) = (nrm(x - 1, y - 1) + nrm(x, y - 1) + nrm(x + 1, y - 1) + nrm(x - 1, y) + nrm(x, y) + nrm(x + 1, y) +
                 nrm(x - 1, y + 1) + nrm(x, y + 1) + nrm(x + 1, y + 1)) /
                9.0f;
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in}};
}
// A Func refined by two in-place updates over its own vars (no RDom): clipped where a mask is set,
// then gamma-corrected, then read by a 2 x 2 downsample.
P inplace() {
    ImageParam in(Float(32), 2, "in"), mask(UInt(8), 2, "mask");
    Func f("f"), out("out");
    f(x, y) = in(x, y) * 1.5f;
    f(x, y) = select(mask(x, y) > 128, clamp(f(x, y), -0.5f, 0.5f), f(x, y));
    f(x, y) = f(x, y) * abs(f(x, y));
    out(x, y) = (f(2 * x, 2 * y) + f(2 * x + 1, 2 * y) + f(2 * x, 2 * y + 1) + f(2 * x + 1, 2 * y + 1)) * 0.25f;
    in.set_estimates({{0, 3840}, {0, 2160}});
    mask.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 1920}, {0, 1080}});
    return {{out}, {in, mask}};
}
// An RGGB Bayer mosaic sampled from a planar 16-bit RGB image, each pixel's channel chosen by its
// row's and column's parity.
P bayer() {
    ImageParam in(UInt(16), 3, "in");
    Func out("out");
    Expr ch = select(y % 2 == 0, select(x % 2 == 0, 0, 1), select(x % 2 == 0, 1, 2));
    out(x, y) = in(x, y, ch);
    in.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in}};
}

}  // namespace

void add_pipelines_d(Registry &r) {
    r.emplace("chsoftmax", chsoftmax);
    r.emplace("gaussr", gaussr);
    r.emplace("morphgrad", morphgrad);
    r.emplace("transpose16", transpose16);
    r.emplace("gather2", gather2);
    r.emplace("rownormblur", rownormblur);
    r.emplace("inplace", inplace);
    r.emplace("bayer", bayer);
}

}  // namespace user_pipelines
