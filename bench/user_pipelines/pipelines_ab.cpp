// Twenty-eighth set: parameters of other types and reductions written over flattened indices. A
// gamma given as a `Param<double>` and an offset as a `Param<int64_t>`, a sum over an image walked
// by one RDom over width x height points (its coordinates `r % w` and `r / w`), and six outputs of
// three shapes from one image (row sums, column sums, its total, extremes, and a clamped copy).
#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var x("x"), y("y");

P paramtypes() {
    ImageParam in(Float(32), 2, "in");
    Param<double> gamma("gamma", 2.2);
    Param<int64_t> offset("offset", 0);
    Func out("out"), q("q");
    out(x, y) = cast<float>(pow(cast<double>(max(in(x, y), 0.0f)), Expr(1.0) / gamma));
    q(x, y) = cast<int64_t>(in(x, y) * 1000.0f) + offset;
    in.set_estimates({{0, 3840}, {0, 2160}});
    gamma.set_estimate(2.2);
    offset.set_estimate(int64_t(1) << 40);
    out.set_estimates({{0, 3840}, {0, 2160}});
    q.set_estimates({{0, 3840}, {0, 2160}});
    return {{out, q}, {in, gamma, offset}};
}

// Each of 64 bins of a 4K image's columns' index modulo 64, summed over a flattened RDom.
P flatsum() {
    ImageParam in(Float(32), 2, "in");
    Expr w = in.dim(0).extent(), h = in.dim(1).extent();
    RDom r(0, w * h, "r");
    Func total("total"), bands("bands");
    Var i("i");
    total() = sum(in(r % w, r / w));
    bands(i) = 0.0f;
    bands((r % w) % 64) += in(r % w, r / w);
    in.set_estimates({{0, 3840}, {0, 2160}});
    bands.set_estimates({{0, 64}});
    return {{total, bands}, {in}};
}

P sixout() {
    ImageParam in(Float(32), 2, "in");
    RDom rx(0, in.dim(0).extent(), "rx"), ry(0, in.dim(1).extent(), "ry");
    RDom all(0, in.dim(0).extent(), 0, in.dim(1).extent(), "all");
    Func rows("rows"), cols("cols"), total("total"), hi("hi"), lo("lo"), clipped("clipped");
    rows(y) = sum(in(rx, y));
    cols(x) = sum(in(x, ry));
    total() = sum(in(all.x, all.y));
    hi() = maximum(in(all.x, all.y));
    lo() = minimum(in(all.x, all.y));
    clipped(x, y) = clamp(in(x, y), -0.5f, 0.5f);
    in.set_estimates({{0, 3840}, {0, 2160}});
    rows.set_estimates({{0, 2160}});
    cols.set_estimates({{0, 3840}});
    clipped.set_estimates({{0, 3840}, {0, 2160}});
    return {{rows, cols, total, hi, lo, clipped}, {in}};
}

}  // namespace

void add_pipelines_ab(Registry &r) {
    r.emplace("paramtypes", paramtypes);
    r.emplace("flatsum", flatsum);
    r.emplace("sixout", sixout);
}

}  // namespace user_pipelines
