#include "apps/app_pipeline.h"

namespace solder {

BuiltPipeline lens_blur_pipeline(const AppIO &io) {
    using namespace Halide;
    Var x("x"), y("y"), c("c"), d("d");
    ImageParam left = image_input(io.inputs[0]), right = image_input(io.inputs[1]);
    Param<int> disparities = scalar_input<int>(io.scalars[0]), focus = scalar_input<int>(io.scalars[1]);
    Func lc = BoundaryConditions::repeat_edge(left), rc = BoundaryConditions::repeat_edge(right);
    Expr W = left.dim(0).extent(), H = left.dim(1).extent();

    // The cost volume: RGB absolute differences at disparity d, summed over a 5x5 window.
    Func diff("diff"), cost_x("cost_x"), cost("cost"), depth("depth"), radius("radius"), out("lens_blur");
    Expr sad = 0;
    for (int ch = 0; ch < 3; ch++) sad = sad + abs(cast<int>(lc(x, y, ch)) - cast<int>(rc(x - d, y, ch)));
    diff(x, y, d) = cast<int>(sad);
    cost_x(x, y, d) = diff(x - 2, y, d) + diff(x - 1, y, d) + diff(x, y, d) + diff(x + 1, y, d) + diff(x + 2, y, d);
    cost(x, y, d) =
        cost_x(x, y - 2, d) + cost_x(x, y - 1, d) + cost_x(x, y, d) + cost_x(x, y + 1, d) + cost_x(x, y + 2, d);
    // The arg-min over the disparities, the smallest d on ties: the least of cost * 256 + d (a
    // cost is at most 25 * 3 * 255, and there are fewer than 256 disparities).
    RDom rd(0, disparities, "rd");
    depth(x, y) = minimum(cost(x, y, rd) * 256 + rd) % 256;
    radius(x, y) = cast<int>(min(abs(depth(x, y) - focus), 8));  // (abs of an int is unsigned)

    // The gather over the aperture: the centre and 8 samples on a disc of the pixel's radius.
    const int sample_x[8] = {4, 3, 0, -3, -4, -3, 0, 3}, sample_y[8] = {0, 3, 4, 3, 0, -3, -4, -3};
    auto image = [&](Expr xx, Expr yy) { return cast<float>(left(xx, yy, c)) * (1.0f / 255.0f); };
    Expr r = radius(x, y);
    Expr acc = image(x, y), wsum = 1.0f;
    for (int k = 0; k < 8; k++) {
        Expr sx = clamp(x + (r * sample_x[k]) / 4, 0, W - 1), sy = clamp(y + (r * sample_y[k]) / 4, 0, H - 1);
        Expr wk = min(1.0f, cast<float>(radius(sx, sy) + 1) / cast<float>(r + 1));
        acc = acc + wk * image(sx, sy);
        wsum = wsum + wk;
    }
    out(x, y, c) = acc / wsum;

    lang::set_estimates(out, io.outputs[0].shape);
    BuiltPipeline b;
    b.inputs = {left, right};
    b.outputs = {out};
    b.scalars = {disparities, focus};
    return b;
}

}  // namespace solder
