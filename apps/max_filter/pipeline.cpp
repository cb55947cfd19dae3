#include "apps/app_pipeline.h"

namespace solder {

BuiltPipeline max_filter_pipeline(const AppIO &io) {
    using namespace Halide;
    Var x("x"), y("y"), c("c"), t("t");
    ImageParam in = image_input(io.inputs[0]);
    Param<int> radius = scalar_input<int>(io.scalars[0]);
    // Radii up to 16: the column windows' scan then keeps its tile of steps in a GPU block's shared
    // memory, sized for 16 (a radius known only as a Param would grow the tile without bound).
    radius.set_range(0, 16);
    Func clamped = BoundaryConditions::repeat_edge(in);

    // vert(x, y, c, t): the max of the column window [y - t, y + t], for t = 0 .. radius, each
    // window grown from the one before by its two new ends.
    Func vert("vert");
    vert(x, y, c, t) = clamped(x, y, c);
    RDom rt(1, radius, "rt");
    vert(x, y, c, rt) = max(vert(x, y, c, rt - 1), max(clamped(x, y - rt, c), clamped(x, y + rt, c)));

    // The disc: column x + dx contributes its window of half-height floor(sqrt(radius^2 - dx^2))
    // (the +0.5 keeps the floor exact under a sqrt that is off by a few ulps).
    RDom rx(-radius, 2 * radius + 1, "rx");
    Expr h = cast<int>(floor(sqrt(cast<float>(radius * radius - rx * rx) + 0.5f)));
    h = clamp(h, 0, radius);
    Func out("max_filter");
    out(x, y, c) = maximum(vert(x + rx, y, c, h));

    lang::set_estimates(out, io.outputs[0].shape);
    BuiltPipeline b;
    b.inputs = {in};
    b.scalars = {radius};
    b.outputs = {out};
    return b;
}

}  // namespace solder
