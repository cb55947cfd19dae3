#include "apps/app_pipeline.h"

namespace solder {

BuiltPipeline swiglu_bwd_pipeline(const AppIO &io) {
    using namespace Halide;
    Var h("h"), t("t");
    ImageParam gate = image_input(io.inputs[0]), up = image_input(io.inputs[1]), dy = image_input(io.inputs[2]);
    Func sig("sig"), dgate("dgate"), dup("dup");
    sig(h, t) = 1.0f / (1.0f + exp(-gate(h, t)));
    dgate(h, t) = dy(h, t) * up(h, t) * sig(h, t) * (1.0f + gate(h, t) * (1.0f - sig(h, t)));
    dup(h, t) = dy(h, t) * gate(h, t) * sig(h, t);
    lang::set_estimates(dgate, io.outputs[0].shape);
    lang::set_estimates(dup, io.outputs[1].shape);
    BuiltPipeline p;
    p.inputs = {gate, up, dy};
    p.outputs = {dgate, dup};
    return p;
}

}  // namespace solder
