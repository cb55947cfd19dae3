#include "apps/app_pipeline.h"

namespace solder {

BuiltPipeline bilateral_grid_pipeline(const AppIO &io) {
    using namespace Halide;
    Var x("x"), y("y"), z("z"), c("c");
    ImageParam in = image_input(io.inputs[0]);
    Param<float> r_sigma = scalar_input<float>(io.scalars[0]);
    const int s = 8;  // the grid's spatial step, in pixels
    Func clamped = BoundaryConditions::repeat_edge(in);
    Expr inv_r = 1.0f / r_sigma;

    // The grid: over each s x s tile, the sum of the values (c = 0) and their count (c = 1) in
    // intensity bins of width r_sigma.
    Func grid("grid");
    RDom t(0, s, 0, s, "t");
    Expr v = clamp(clamped(x * s + t.x - s / 2, y * s + t.y - s / 2), 0.0f, 1.0f);
    Expr zb = cast<int>(v * inv_r + 0.5f);
    grid(x, y, z, c) = 0.0f;
    grid(x, y, zb, c) += select(c == 0, v, 1.0f);

    // A 5-tap [1 4 6 4 1] blur in z, x and y.
    auto taps = [](Expr m2, Expr m1, Expr c0, Expr p1, Expr p2) { return (m2 + p2) + 4.0f * (m1 + p1) + 6.0f * c0; };
    Func blur_z("blur_z"), blur_x("blur_x"), blur_y("blur_y");
    blur_z(x, y, z, c) =
        taps(grid(x, y, z - 2, c), grid(x, y, z - 1, c), grid(x, y, z, c), grid(x, y, z + 1, c), grid(x, y, z + 2, c));
    blur_x(x, y, z, c) = taps(blur_z(x - 2, y, z, c), blur_z(x - 1, y, z, c), blur_z(x, y, z, c),
                              blur_z(x + 1, y, z, c), blur_z(x + 2, y, z, c));
    blur_y(x, y, z, c) = taps(blur_x(x, y - 2, z, c), blur_x(x, y - 1, z, c), blur_x(x, y, z, c),
                              blur_x(x, y + 1, z, c), blur_x(x, y + 2, z, c));

    // Slicing: trilinear interpolation of the blurred grid at (x / s, y / s, value / r_sigma).
    Expr val = clamp(clamped(x, y), 0.0f, 1.0f);
    Expr zv = val * inv_r;
    Expr zi = clamp(cast<int>(zv), 0, cast<int>(inv_r + 0.5f));
    Expr zf = zv - cast<float>(zi);
    Expr xi = x / s, yi = y / s;
    Expr xf = cast<float>(x % s) * (1.0f / s), yf = cast<float>(y % s) * (1.0f / s);
    auto mix = [](Expr a, Expr b, Expr w) { return a + (b - a) * w; };
    Func interpolated("interpolated"), out("bilateral_grid");
    interpolated(x, y, c) = mix(mix(mix(blur_y(xi, yi, zi, c), blur_y(xi + 1, yi, zi, c), xf),
                                    mix(blur_y(xi, yi + 1, zi, c), blur_y(xi + 1, yi + 1, zi, c), xf), yf),
                                mix(mix(blur_y(xi, yi, zi + 1, c), blur_y(xi + 1, yi, zi + 1, c), xf),
                                    mix(blur_y(xi, yi + 1, zi + 1, c), blur_y(xi + 1, yi + 1, zi + 1, c), xf), yf),
                                zf);
    out(x, y) = interpolated(x, y, 0) / interpolated(x, y, 1);

    lang::set_estimates(out, io.outputs[0].shape);
    BuiltPipeline b;
    b.inputs = {in};
    b.scalars = {r_sigma};
    b.outputs = {out};
    return b;
}

}  // namespace solder
