#include "apps/app_pipeline.h"

namespace solder {

BuiltPipeline unsharp_pipeline(const AppIO &io) {
    using namespace Halide;
    Var x("x"), y("y"), c("c");
    ImageParam in = image_input(io.inputs[0]);
    Func clamped = BoundaryConditions::repeat_edge(in);
    const float w0 = 0.375f, w1 = 0.25f, w2 = 0.0625f, amount = 1.5f, eps = 1e-4f;

    Func gray("gray"), blur_x("blur_x"), blur_y("blur_y"), sharpen("sharpen"), ratio("ratio"), out("unsharp");
    gray(x, y) = 0.299f * clamped(x, y, 0) + 0.587f * clamped(x, y, 1) + 0.114f * clamped(x, y, 2);
    blur_x(x, y) = w0 * gray(x, y) + w1 * (gray(x - 1, y) + gray(x + 1, y)) + w2 * (gray(x - 2, y) + gray(x + 2, y));
    blur_y(x, y) =
        w0 * blur_x(x, y) + w1 * (blur_x(x, y - 1) + blur_x(x, y + 1)) + w2 * (blur_x(x, y - 2) + blur_x(x, y + 2));
    sharpen(x, y) = gray(x, y) + amount * (gray(x, y) - blur_y(x, y));
    ratio(x, y) = sharpen(x, y) / max(gray(x, y), eps);
    out(x, y, c) = clamped(x, y, c) * ratio(x, y);

    lang::set_estimates(out, io.outputs[0].shape);
    BuiltPipeline b;
    b.inputs = {in};
    b.outputs = {out};
    return b;
}

}  // namespace solder
