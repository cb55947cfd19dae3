#include "apps/app_pipeline.h"

namespace solder {

BuiltPipeline conv_layer_pipeline(const AppIO &io) {
    using namespace Halide;
    Var x("x"), y("y"), co("co"), n("n");
    ImageParam in = image_input(io.inputs[0]), filter = image_input(io.inputs[1]), bias = image_input(io.inputs[2]);
    // Zero padding in x and y only ("same" convolution).
    Func padded = BoundaryConditions::constant_exterior(in, 0.0f, {{0, in.dim(0).extent()}, {0, in.dim(1).extent()}});

    Expr kw = filter.dim(0).extent(), kh = filter.dim(1).extent();
    RDom r(0, kw, 0, kh, 0, in.dim(2).extent(), "r");
    Func conv("conv"), relu("relu");
    conv(x, y, co, n) = bias(co);
    conv(x, y, co, n) += filter(r.x, r.y, r.z, co) * padded(x + r.x - (kw - 1) / 2, y + r.y - (kh - 1) / 2, r.z, n);
    relu(x, y, co, n) = max(conv(x, y, co, n), 0.0f);

    lang::set_estimates(relu, io.outputs[0].shape);
    BuiltPipeline b;
    b.inputs = {in, filter, bias};
    b.outputs = {relu};
    return b;
}

}  // namespace solder
