// Twenty-ninth set: recurrences written over an RDom of both dims, as users write them when a
// Func's pure var may not appear shifted in its own update. A seam-carving cost on a 1080p colour
// image (each row's minimum over the three neighbours above: the rows in order, each row's points
// at once), and a recursive filter down each column of a 4K image (each column's walk on its own).
#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var x("x"), y("y"), c("c");

// The cumulative minimum energy of a vertical seam through each pixel: the energy is the
// gradient magnitude of the luminance, the image's edges repeated.
P seam1080() {
    ImageParam in(Float(32), 3, "in");
    Func clamped = BoundaryConditions::repeat_edge(in);
    Func lum("lum"), energy("energy"), cost("cost");
    lum(x, y) = 0.299f * clamped(x, y, 0) + 0.587f * clamped(x, y, 1) + 0.114f * clamped(x, y, 2);
    Expr gx = lum(x + 1, y) - lum(x - 1, y), gy = lum(x, y + 1) - lum(x, y - 1);
    energy(x, y) = sqrt(gx * gx + gy * gy);
    Expr w = in.dim(0).extent();
    RDom r(0, w, 1, in.dim(1).extent() - 1, "r");
    cost(x, y) = energy(x, y);
    Expr up = cost(r.x, r.y - 1), left = cost(max(r.x - 1, 0), r.y - 1), right = cost(min(r.x + 1, w - 1), r.y - 1);
    cost(r.x, r.y) = energy(r.x, r.y) + min(up, min(left, right));
    in.set_estimates({{0, 1920}, {0, 1080}, {0, 3}});
    cost.set_estimates({{0, 1920}, {0, 1080}});
    return {{cost}, {in}};
}

// A first-order recursive filter down each column, its gain a parameter.
P colirr() {
    ImageParam in(Float(32), 2, "in");
    Param<float> a("a", 0.9f);
    Func f("f");
    f(x, y) = in(x, y);
    RDom r(0, in.dim(0).extent(), 1, in.dim(1).extent() - 1, "r");
    f(r.x, r.y) = a * f(r.x, r.y - 1) + (1 - a) * in(r.x, r.y);
    in.set_estimates({{0, 3840}, {0, 2160}});
    a.set_estimate(0.9f);
    f.set_estimates({{0, 3840}, {0, 2160}});
    return {{f}, {in, a}};
}

// A 4K image stretched to [0, 1] by its minimum and maximum, each a reduction of its own.
P stretch() {
    ImageParam in(Float(32), 2, "in");
    RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
    Func lo("lo"), hi("hi"), out("out");
    lo() = minimum(in(r.x, r.y));
    hi() = maximum(in(r.x, r.y));
    out(x, y) = (in(x, y) - lo()) / max(hi() - lo(), 1e-6f);
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in}};
}

}  // namespace

void add_pipelines_ac(Registry &r) {
    r.emplace("seam1080", seam1080);
    r.emplace("colirr", colirr);
    r.emplace("stretch", stretch);
}

}  // namespace user_pipelines
