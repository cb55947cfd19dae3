#include "apps/app_pipeline.h"

namespace solder {

BuiltPipeline int8_quant_pipeline(const AppIO &io) {
    using namespace Halide;
    Var c("c"), r("r");
    ImageParam x = image_input(io.inputs[0]);
    RDom k(0, x.dim(0).extent(), "k");
    Func absmax("absmax"), scale("scale"), q("q");
    absmax(r) = maximum(abs(x(k, r)));
    scale(r) = max(absmax(r), 1e-8f) / 127.0f;
    q(c, r) = cast<int8_t>(clamp(round(x(c, r) / scale(r)), -127.0f, 127.0f));
    lang::set_estimates(q, io.outputs[0].shape);
    lang::set_estimates(scale, io.outputs[1].shape);
    BuiltPipeline p;
    p.inputs = {x};
    p.outputs = {q, scale};
    return p;
}

}  // namespace solder
