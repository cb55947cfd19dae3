#include "apps/app_pipeline.h"

namespace solder {

BuiltPipeline blur_pipeline(const AppIO &io) {
    using namespace Halide;
    Var x("x"), y("y");
    ImageParam in = image_input(io.inputs[0]);
    Func clamped = BoundaryConditions::repeat_edge(in);
    const float third = 1.0f / 3.0f;

    Func blur_x("blur_x"), blur_y("blur_y");
    blur_x(x, y) = (clamped(x - 1, y) + clamped(x, y) + clamped(x + 1, y)) * third;
    blur_y(x, y) = (blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) * third;

    lang::set_estimates(blur_y, io.outputs[0].shape);
    BuiltPipeline b;
    b.inputs = {in};
    b.outputs = {blur_y};
    return b;
}

}  // namespace solder
