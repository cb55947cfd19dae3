#include <string>
#include <vector>

#include "apps/app_pipeline.h"

namespace solder {

BuiltPipeline bgu_pipeline(const AppIO &io) {
    using namespace Halide;
    const int cell = 8, bins = 8;
    Var x("x"), y("y"), c("c"), i("i"), j("j"), gx("gx"), gy("gy"), gz("gz");
    ImageParam hi = image_input(io.inputs[0]), lo_in = image_input(io.inputs[1]), lo_out = image_input(io.inputs[2]);
    Param<float> lambda = scalar_input<float>(io.scalars[0]);
    Expr W = hi.dim(0).extent(), H = hi.dim(1).extent(), w = lo_in.dim(0).extent(), h = lo_in.dim(1).extent();
    Expr gw = (w + cell - 1) / cell, gh = (h + cell - 1) / cell;

    // v = [r g b 1] of the low-resolution input; the targets [v | o] of the augmented system.
    Func v("v"), target("target");
    v(x, y, i) = select(i == 3, 1.0f, lo_in(x, y, clamp(i, 0, 2)));
    target(x, y, j) = select(j < 4, v(x, y, j), lo_out(x, y, clamp(j - 4, 0, 2)));
    auto luma_bin = [&](Expr r, Expr g, Expr b) { return (0.25f * r + 0.5f * g + 0.25f * b) * float(bins - 1); };

    // The normal equations [M | B] of each cell, over its tile (pixels past the image weigh 0).
    RDom t(0, cell, 0, cell, "t");
    Expr px = gx * cell + t.x, py = gy * cell + t.y;
    Expr inside = px < w && py < h;
    Expr cx = min(px, w - 1), cy = min(py, h - 1);
    Expr z = luma_bin(lo_in(cx, cy, 0), lo_in(cx, cy, 1), lo_in(cx, cy, 2));
    Expr wt = select(inside, max(0.0f, 1.0f - abs(z - cast<float>(gz))), 0.0f);
    Func normal("normal_eqs");
    normal(gx, gy, gz, i, j) = 0.0f;
    normal(gx, gy, gz, i, j) += wt * v(cx, cy, i) * target(cx, cy, j);

    // Regularized towards the identity model, then Gaussian elimination: step k clears column k
    // below the diagonal.
    Func A("system_0");
    A(gx, gy, gz, i, j) = normal(gx, gy, gz, i, j) + select(i == j || i == j - 4, lambda, 0.0f);
    for (int k = 0; k < 3; k++) {
        Func next("system_" + std::to_string(k + 1));
        next(gx, gy, gz, i, j) =
            select(i <= k, A(gx, gy, gz, i, j),
                   A(gx, gy, gz, i, j) - A(gx, gy, gz, i, k) / A(gx, gy, gz, k, k) * A(gx, gy, gz, k, j));
        A = next;
    }
    // Back substitution for the three right-hand sides (columns 4 + c).
    auto a = [&](int r, Expr col) { return A(gx, gy, gz, r, col); };
    Func x3("model_3"), x2("model_2"), x1("model_1"), x0("model_0"), model("model");
    x3(gx, gy, gz, c) = a(3, 4 + c) / a(3, 3);
    x2(gx, gy, gz, c) = (a(2, 4 + c) - a(2, 3) * x3(gx, gy, gz, c)) / a(2, 2);
    x1(gx, gy, gz, c) = (a(1, 4 + c) - a(1, 2) * x2(gx, gy, gz, c) - a(1, 3) * x3(gx, gy, gz, c)) / a(1, 1);
    x0(gx, gy, gz, c) =
        (a(0, 4 + c) - a(0, 1) * x1(gx, gy, gz, c) - a(0, 2) * x2(gx, gy, gz, c) - a(0, 3) * x3(gx, gy, gz, c)) /
        a(0, 0);
    model(gx, gy, gz, i, c) =
        select(i == 0, x0(gx, gy, gz, c), i == 1, x1(gx, gy, gz, c), i == 2, x2(gx, gy, gz, c), x3(gx, gy, gz, c));

    // Slicing: trilinear interpolation of the grid at each full-resolution pixel.
    Expr sx = cast<float>(w) / cast<float>(W) / float(cell), sy = cast<float>(h) / cast<float>(H) / float(cell);
    Expr fx = (cast<float>(x) + 0.5f) * sx - 0.5f, fy = (cast<float>(y) + 0.5f) * sy - 0.5f;
    Expr fz = luma_bin(hi(x, y, 0), hi(x, y, 1), hi(x, y, 2));
    Expr flx = floor(fx), fly = floor(fy), flz = floor(fz);
    Expr ax = fx - flx, ay = fy - fly, az = fz - flz;
    Expr ix = cast<int>(flx), iy = cast<int>(fly), iz = cast<int>(flz);
    auto at = [&](Expr ex, Expr ey, Expr ez) {
        return model(clamp(ex, 0, gw - 1), clamp(ey, 0, gh - 1), clamp(ez, 0, bins - 1), i, c);
    };
    auto lx = [&](Expr ey, Expr ez) { return (1.0f - ax) * at(ix, ey, ez) + ax * at(ix + 1, ey, ez); };
    auto ly = [&](Expr ez) { return (1.0f - ay) * lx(iy, ez) + ay * lx(iy + 1, ez); };
    Func slice("slice"), out("bgu");
    slice(x, y, i, c) = (1.0f - az) * ly(iz) + az * ly(iz + 1);
    out(x, y, c) = slice(x, y, 0, c) * hi(x, y, 0) + slice(x, y, 1, c) * hi(x, y, 1) + slice(x, y, 2, c) * hi(x, y, 2) +
                   slice(x, y, 3, c);

    lang::set_estimates(out, io.outputs[0].shape);
    BuiltPipeline b;
    b.inputs = {hi, lo_in, lo_out};
    b.outputs = {out};
    b.scalars = {lambda};
    return b;
}

}  // namespace solder
