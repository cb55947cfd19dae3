#include <vector>

#include "apps/app_pipeline.h"

namespace solder {

BuiltPipeline interpolate_pipeline(const AppIO &io) {
    using namespace Halide;
    const int levels = 10;
    Var x("x"), y("y"), c("c");
    ImageParam in = image_input(io.inputs[0]);

    // Each level's extent, and reads of a level clamped to it.
    std::vector<Expr> w(levels), h(levels);
    w[0] = in.dim(0).extent(), h[0] = in.dim(1).extent();
    for (int l = 1; l < levels; l++) w[l] = (w[l - 1] + 1) / 2, h[l] = (h[l - 1] + 1) / 2;
    auto cx = [&](Expr e, int l) { return clamp(e, 0, w[l] - 1); };
    auto cy = [&](Expr e, int l) { return clamp(e, 0, h[l] - 1); };

    std::vector<Func> down(levels), up(levels);
    down[0] = Func("premultiplied");
    down[0](x, y, c) = select(c == 3, in(x, y, 3), in(x, y, c) * in(x, y, 3));
    for (int l = 1; l < levels; l++) {
        Func dx("down_x_" + std::to_string(l)), d("down_" + std::to_string(l));
        const Func &f = down[l - 1];
        dx(x, y, c) = 0.25f * f(cx(2 * x - 1, l - 1), y, c) + 0.5f * f(cx(2 * x, l - 1), y, c) +
                      0.25f * f(cx(2 * x + 1, l - 1), y, c);
        d(x, y, c) = 0.25f * dx(x, cy(2 * y - 1, l - 1), c) + 0.5f * dx(x, cy(2 * y, l - 1), c) +
                     0.25f * dx(x, cy(2 * y + 1, l - 1), c);
        down[l] = d;
    }
    up[levels - 1] = down[levels - 1];
    for (int l = levels - 2; l >= 0; l--) {
        Func ux("up_x_" + std::to_string(l)), u("up_" + std::to_string(l));
        const Func &cs = up[l + 1];
        ux(x, y, c) = 0.25f * cs(cx(x / 2 - 1 + 2 * (x % 2), l + 1), y, c) + 0.75f * cs(cx(x / 2, l + 1), y, c);
        Expr coarse = 0.25f * ux(x, cy(y / 2 - 1 + 2 * (y % 2), l + 1), c) + 0.75f * ux(x, cy(y / 2, l + 1), c);
        u(x, y, c) = down[l](x, y, c) + (1.0f - down[l](x, y, 3)) * coarse;
        up[l] = u;
    }
    Func out("interpolate");
    out(x, y, c) = up[0](x, y, c) / max(up[0](x, y, 3), 1e-6f);

    lang::set_estimates(out, io.outputs[0].shape);
    BuiltPipeline b;
    b.inputs = {in};
    b.outputs = {out};
    return b;
}

}  // namespace solder
