// Forty-third set: two stencil pipelines whose reads are clamped by hand, as Halide's tutorials
// clamp them (`in(clamp(x + k, 0, w - 1), y)`), not through BoundaryConditions: an unsharp mask
// of a 4K f32 image (a 5 x 5 box blur in two passes) and the Sobel gradient magnitude of a 4K
// 8-bit image (f32).
#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var x("x"), y("y");

P hcunsharp() {
    ImageParam in(Float(32), 2, "in");
    Param<float> amount("amount");
    amount.set_estimate(1.5f);
    Expr W = in.width(), H = in.height();
    Func bx("bx"), by("by"), out("out");
    Expr sx = 0.0f, sy = 0.0f;
    for (int k = -2; k <= 2; k++) sx += in(clamp(x + k, 0, W - 1), clamp(y, 0, H - 1));
    bx(x, y) = sx / 5;
    for (int k = -2; k <= 2; k++) sy += bx(x, clamp(y + k, 0, H - 1));
    by(x, y) = sy / 5;
    out(x, y) = in(x, y) + amount * (in(x, y) - by(x, y));
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in, amount}};
}

P hcsobel() {
    ImageParam in(UInt(8), 2, "in");
    Expr W = in.width(), H = in.height();
    Func f("f"), gx("gx"), gy("gy"), out("out");
    f(x, y) = cast<float>(in(clamp(x, 0, W - 1), clamp(y, 0, H - 1))) / 255.0f;
    gx(x, y) =
        (f(x + 1, y - 1) + 2 * f(x + 1, y) + f(x + 1, y + 1)) - (f(x - 1, y - 1) + 2 * f(x - 1, y) + f(x - 1, y + 1));
    gy(x, y) =
        (f(x - 1, y + 1) + 2 * f(x, y + 1) + f(x + 1, y + 1)) - (f(x - 1, y - 1) + 2 * f(x, y - 1) + f(x + 1, y - 1));
    out(x, y) = sqrt(gx(x, y) * gx(x, y) + gy(x, y) * gy(x, y));
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in}};
}

}  // namespace

void add_pipelines_aq(Registry &r) {
    r.emplace("hcunsharp", hcunsharp);
    r.emplace("hcsobel", hcsobel);
}

}  // namespace user_pipelines
