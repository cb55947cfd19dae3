#include "apps/app_pipeline.h"

namespace solder {

BuiltPipeline image_stats_pipeline(const AppIO &io) {
    using namespace Halide;
    Var x("x"), y("y");
    ImageParam in = image_input(io.inputs[0]);
    RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
    Expr n = cast<float>(in.dim(0).extent() * in.dim(1).extent());
    Func mean("mean"), var("var"), out("out");
    mean() = sum(in(r.x, r.y)) / n;
    var() = sum((in(r.x, r.y) - mean()) * (in(r.x, r.y) - mean())) / n;
    out(x, y) = (in(x, y) - mean()) / sqrt(var() + 1e-5f);
    lang::set_estimates(out, io.outputs[0].shape);
    BuiltPipeline p;
    p.inputs = {in};
    p.outputs = {out};
    return p;
}

}  // namespace solder
