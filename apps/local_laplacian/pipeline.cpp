#include <string>
#include <vector>

#include "apps/app_pipeline.h"

namespace solder {

BuiltPipeline local_laplacian_pipeline(const AppIO &io) {
    using namespace Halide;
    const int levels = 8, K = 8, lut_half = 256;
    Var x("x"), y("y"), k("k"), j("j");
    ImageParam in = image_input(io.inputs[0]);
    Param<float> alpha = scalar_input<float>(io.scalars[0]), beta = scalar_input<float>(io.scalars[1]);

    std::vector<Expr> w(levels), h(levels);
    w[0] = in.dim(0).extent(), h[0] = in.dim(1).extent();
    for (int l = 1; l < levels; l++) w[l] = (w[l - 1] + 1) / 2, h[l] = (h[l - 1] + 1) / 2;
    auto cx = [&](Expr e, int l) { return clamp(e, 0, w[l] - 1); };
    auto cy = [&](Expr e, int l) { return clamp(e, 0, h[l] - 1); };
    // A Func of (x, y, k) at level l - 1 decimated to level l, and one at level l + 1 upsampled to
    // level l; k is a plane index (a single plane for the input's pyramid).
    auto down = [&](const Func &f, int l, const std::string &name) {
        Func dx(name + "_x"), d(name);
        dx(x, y, k) = 0.25f * f(cx(2 * x - 1, l - 1), y, k) + 0.5f * f(cx(2 * x, l - 1), y, k) +
                      0.25f * f(cx(2 * x + 1, l - 1), y, k);
        d(x, y, k) = 0.25f * dx(x, cy(2 * y - 1, l - 1), k) + 0.5f * dx(x, cy(2 * y, l - 1), k) +
                     0.25f * dx(x, cy(2 * y + 1, l - 1), k);
        return d;
    };
    auto up = [&](const Func &f, int l, const std::string &name) {
        Func ux(name + "_x"), u(name);
        ux(x, y, k) = 0.25f * f(cx(x / 2 - 1 + 2 * (x % 2), l + 1), y, k) + 0.75f * f(cx(x / 2, l + 1), y, k);
        u(x, y, k) = 0.25f * ux(x, cy(y / 2 - 1 + 2 * (y % 2), l + 1), k) + 0.75f * ux(x, cy(y / 2, l + 1), k);
        return u;
    };

    // The remapping table and the K remapped copies.
    Func lut("lut"), remapped("remapped");
    Expr d = cast<float>(j - lut_half) * (1.0f / float(lut_half));
    lut(j) = beta * d + alpha * d * exp(-(d * d) * (1.0f / (2.0f * 0.1f * 0.1f)));
    Expr g = cast<float>(k) * (1.0f / float(K - 1));
    Expr idx = (in(x, y) - g + 1.0f) * float(lut_half);
    Expr j0 = clamp(cast<int>(floor(idx)), 0, 2 * lut_half - 1);
    Expr t = idx - cast<float>(j0);
    remapped(x, y, k) = g + ((1.0f - t) * lut(j0) + t * lut(j0 + 1));

    // Gaussian pyramids of the input (one plane) and of the copies.
    std::vector<Func> gin(levels), gp(levels);
    gin[0] = Func("input_g0");
    gin[0](x, y, k) = in(x, y);
    gp[0] = remapped;
    for (int l = 1; l < levels; l++) {
        gin[l] = down(gin[l - 1], l, "input_g" + std::to_string(l));
        gp[l] = down(gp[l - 1], l, "copies_g" + std::to_string(l));
    }
    // Output Laplacian levels interpolated between copies, and the collapse.
    Func cur = gin[levels - 1];
    for (int l = levels - 2; l >= 0; l--) {
        Func lap("copies_l" + std::to_string(l)), next("output_g" + std::to_string(l));
        Func gp_up = up(gp[l + 1], l, "copies_up" + std::to_string(l));
        lap(x, y, k) = gp[l](x, y, k) - gp_up(x, y, k);
        Expr li = gin[l](x, y, 0) * float(K - 1);
        Expr k0 = clamp(cast<int>(floor(li)), 0, K - 2);
        Expr tk = li - cast<float>(k0);
        Func cur_up = up(cur, l, "output_up" + std::to_string(l));
        next(x, y, k) = ((1.0f - tk) * lap(x, y, k0) + tk * lap(x, y, k0 + 1)) + cur_up(x, y, 0);
        cur = next;
    }
    Func out("local_laplacian");
    out(x, y) = cur(x, y, 0);

    lang::set_estimates(out, io.outputs[0].shape);
    BuiltPipeline b;
    b.inputs = {in};
    b.outputs = {out};
    b.scalars = {alpha, beta};
    return b;
}

}  // namespace solder
