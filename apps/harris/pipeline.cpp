#include "apps/app_pipeline.h"

namespace solder {

BuiltPipeline harris_pipeline(const AppIO &io) {
    using namespace Halide;
    Var x("x"), y("y");
    ImageParam in = image_input(io.inputs[0]);
    Func clamped = BoundaryConditions::repeat_edge(in);

    Func gray("gray"), Ix("Ix"), Iy("Iy"), Ixx("Ixx"), Iyy("Iyy"), Ixy("Ixy");
    Func Sxx("Sxx"), Syy("Syy"), Sxy("Sxy"), det("det"), trace("trace"), response("response");
    gray(x, y) = 0.299f * clamped(x, y, 0) + 0.587f * clamped(x, y, 1) + 0.114f * clamped(x, y, 2);
    Ix(x, y) = ((gray(x + 1, y - 1) - gray(x - 1, y - 1)) + 2.0f * (gray(x + 1, y) - gray(x - 1, y))) +
               (gray(x + 1, y + 1) - gray(x - 1, y + 1));
    Iy(x, y) = ((gray(x - 1, y + 1) - gray(x - 1, y - 1)) + 2.0f * (gray(x, y + 1) - gray(x, y - 1))) +
               (gray(x + 1, y + 1) - gray(x + 1, y - 1));
    Ixx(x, y) = Ix(x, y) * Ix(x, y);
    Iyy(x, y) = Iy(x, y) * Iy(x, y);
    Ixy(x, y) = Ix(x, y) * Iy(x, y);
    // 3x3 box sums, added row by row, left to right (the reference's order).
    auto box = [&](Func f) {
        Expr s = f(x - 1, y - 1);
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++)
                if (dx != -1 || dy != -1) s = s + f(x + dx, y + dy);
        return s;
    };
    Sxx(x, y) = box(Ixx);
    Syy(x, y) = box(Iyy);
    Sxy(x, y) = box(Ixy);
    det(x, y) = Sxx(x, y) * Syy(x, y) - Sxy(x, y) * Sxy(x, y);
    trace(x, y) = Sxx(x, y) + Syy(x, y);
    response(x, y) = det(x, y) - 0.04f * (trace(x, y) * trace(x, y));

    lang::set_estimates(response, io.outputs[0].shape);
    BuiltPipeline b;
    b.inputs = {in};
    b.outputs = {response};
    return b;
}

}  // namespace solder
