#include "apps/app_pipeline.h"

namespace solder {

BuiltPipeline iir_blur_pipeline(const AppIO &io) {
    using namespace Halide;
    Var x("x"), y("y");
    ImageParam in = image_input(io.inputs[0]);
    const float k = 0.7f;
    Func down("down"), across("across");
    down(x, y) = in(x, y);
    RDom ry(1, in.dim(1).extent() - 1, "ry");
    down(x, ry) = k * down(x, ry - 1) + (1 - k) * down(x, ry);
    across(x, y) = down(x, y);
    RDom rx(1, in.dim(0).extent() - 1, "rx");
    across(rx, y) = k * across(rx - 1, y) + (1 - k) * across(rx, y);
    lang::set_estimates(across, io.outputs[0].shape);
    BuiltPipeline p;
    p.inputs = {in};
    p.outputs = {across};
    return p;
}

}  // namespace solder
