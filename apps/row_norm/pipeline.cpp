#include "apps/app_pipeline.h"

namespace solder {

BuiltPipeline row_norm_pipeline(const AppIO &io) {
    using namespace Halide;
    Var x("x"), y("y");
    ImageParam in = image_input(io.inputs[0]);
    Expr n = cast<float>(in.dim(0).extent());
    RDom r(0, in.dim(0).extent(), "r");
    Func mean("mean"), var("var"), out("out");
    mean(y) = sum(in(r, y)) / n;
    var(y) = sum((in(r, y) - mean(y)) * (in(r, y) - mean(y))) / n;
    out(x, y) = (in(x, y) - mean(y)) / sqrt(var(y) + 1e-5f);
    lang::set_estimates(out, io.outputs[0].shape);
    BuiltPipeline p;
    p.inputs = {in};
    p.outputs = {out};
    return p;
}

}  // namespace solder
