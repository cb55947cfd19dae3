#include "apps/app_pipeline.h"

namespace solder {

BuiltPipeline channels_last_pipeline(const AppIO &io) {
    using namespace Halide;
    Var c("c"), w("w"), h("h"), n("n");
    ImageParam x = image_input(io.inputs[0]), scale = image_input(io.inputs[1]), shift = image_input(io.inputs[2]);
    Func out("out");
    out(c, w, h, n) = x(w, h, c, n) * scale(c) + shift(c);
    lang::set_estimates(out, io.outputs[0].shape);
    BuiltPipeline p;
    p.inputs = {x, scale, shift};
    p.outputs = {out};
    return p;
}

}  // namespace solder
