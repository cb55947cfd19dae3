#include "apps/app_pipeline.h"

namespace solder {

BuiltPipeline int8_dequant_pipeline(const AppIO &io) {
    using namespace Halide;
    Var c("c"), r("r");
    ImageParam q = image_input(io.inputs[0]), scale = image_input(io.inputs[1]);
    Func out("out");
    out(c, r) = cast<float>(q(c, r)) * scale(r);
    lang::set_estimates(out, io.outputs[0].shape);
    BuiltPipeline p;
    p.inputs = {q, scale};
    p.outputs = {out};
    return p;
}

}  // namespace solder
