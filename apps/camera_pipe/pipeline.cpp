#include "apps/app_pipeline.h"

namespace solder {

BuiltPipeline camera_pipe_pipeline(const AppIO &io) {
    using namespace Halide;
    Var x("x"), y("y"), c("c");
    ImageParam raw = image_input(io.inputs[0]), matrix = image_input(io.inputs[1]), lut = image_input(io.inputs[2]);
    // Mirroring about the edge pixels keeps each pixel's colour in the Bayer pattern.
    Func mirrored = BoundaryConditions::mirror_interior(raw);

    // Hot and dead pixels: each pixel clamped to the range of its four nearest same-colour neighbours.
    Func denoised("denoised");
    Expr n_min = min(min(mirrored(x - 2, y), mirrored(x + 2, y)), min(mirrored(x, y - 2), mirrored(x, y + 2)));
    Expr n_max = max(max(mirrored(x - 2, y), mirrored(x + 2, y)), max(mirrored(x, y - 2), mirrored(x, y + 2)));
    denoised(x, y) = clamp(mirrored(x, y), n_min, n_max);

    // Black and white levels of a 12-bit sensor.
    Func lin("lin");
    lin(x, y) = (cast<float>(denoised(x, y)) - 64.0f) * (1.0f / 4031.0f);

    // Bilinear demosaic of an RGGB pattern: red at (even x, even y), blue at (odd x, odd y).
    Expr px = x % 2, py = y % 2;
    Expr horiz = (lin(x - 1, y) + lin(x + 1, y)) * 0.5f;
    Expr vert = (lin(x, y - 1) + lin(x, y + 1)) * 0.5f;
    Expr cross = ((lin(x - 1, y) + lin(x + 1, y)) + (lin(x, y - 1) + lin(x, y + 1))) * 0.25f;
    Expr diag = ((lin(x - 1, y - 1) + lin(x + 1, y - 1)) + (lin(x - 1, y + 1) + lin(x + 1, y + 1))) * 0.25f;
    Func red("red"), green("green"), blue("blue");
    red(x, y) = select(px == 0 && py == 0, lin(x, y), py == 0, horiz, px == 0, vert, diag);
    green(x, y) = select(px != py, lin(x, y), cross);
    blue(x, y) = select(px == 1 && py == 1, lin(x, y), py == 1, horiz, px == 1, vert, diag);

    // Colour correction by a 3x4 matrix (row c: weights of R, G, B, then an offset).
    Func corrected("corrected");
    corrected(x, y, c) =
        ((matrix(0, c) * red(x, y) + matrix(1, c) * green(x, y)) + matrix(2, c) * blue(x, y)) + matrix(3, c);

    // Tone curve (gamma and contrast) from a 1024-entry table.
    Expr lut_size = lut.dim(0).extent();
    Expr idx = clamp(cast<int>(corrected(x, y, c) * cast<float>(lut_size - 1) + 0.5f), 0, lut_size - 1);
    Func out("camera_pipe");
    out(x, y, c) = lut(idx);

    lang::set_estimates(out, io.outputs[0].shape);
    BuiltPipeline b;
    b.inputs = {raw, matrix, lut};
    b.outputs = {out};
    return b;
}

}  // namespace solder
