#include "apps/app_pipeline.h"

namespace solder {

BuiltPipeline swiglu_fwd_pipeline(const AppIO &io) {
    using namespace Halide;
    Var h("h"), t("t");
    ImageParam x = image_input(io.inputs[0]);
    Expr H = x.dim(0).extent() / 2;
    Func gate("gate"), up("up"), out("out");
    gate(h, t) = x(h, t);
    up(h, t) = x(h + H, t);
    out(h, t) = gate(h, t) / (1.0f + exp(-gate(h, t))) * up(h, t);
    lang::set_estimates(out, io.outputs[0].shape);
    BuiltPipeline p;
    p.inputs = {x};
    p.outputs = {out};
    return p;
}

}  // namespace solder
