#include "apps/app_pipeline.h"

namespace solder {

BuiltPipeline stencil_chain_pipeline(const AppIO &io) {
    using namespace Halide;
    Var x("x"), y("y");
    ImageParam in = image_input(io.inputs[0]);
    Func clamped = BoundaryConditions::repeat_edge(in);

    // Separable binomial weights, applied as full 2-D stencils: [1 2 1]/4 (3x3) and
    // [1 4 6 4 1]/16 (5x5). Stages alternate 5x5, 3x3, 5x5, 3x3, 5x5.
    const std::vector<float> w3 = {0.25f, 0.5f, 0.25f}, w5 = {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};
    const int stages = 5;
    Func prev = clamped;
    for (int s = 0; s < stages; s++) {
        const std::vector<float> &w = s % 2 == 0 ? w5 : w3;
        const int r = int(w.size()) / 2;
        Func f("stage" + std::to_string(s));
        Expr acc;
        // Row by row, left to right (the reference's order).
        for (int dy = -r; dy <= r; dy++)
            for (int dx = -r; dx <= r; dx++) {
                Expr t = (w[dy + r] * w[dx + r]) * prev(x + dx, y + dy);
                acc = acc.defined() ? acc + t : t;
            }
        f(x, y) = acc;
        prev = f;
    }

    lang::set_estimates(prev, io.outputs[0].shape);
    BuiltPipeline b;
    b.inputs = {in};
    b.outputs = {prev};
    return b;
}

}  // namespace solder
