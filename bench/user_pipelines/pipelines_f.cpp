// User pipelines, sixth set: a guided filter (four box filters around a per-pixel linear model),
// three steps of heat diffusion on a volume, four generations of the game of life on a torus, a
// per-pixel Newton iteration of a Param count (a Tuple update over an RDom at every pixel), one
// k-means step (an arg-min label per point, then sums scattered by label), a sparse
// matrix-vector product in ELL form (each row's length a predicate), an unsharp mask on an
// interleaved RGB image, a histogram per channel, a box downsampling by a Param factor, Lucas-Kanade
// optical flow (a Tuple output), the two largest values of each row (a Tuple update nothing can
// split), and a bicubic upsampling by a Param scale.
#include <cmath>

#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var x("x"), y("y"), z("z"), c("c"), i("i"), k("k"), d("d");

// A self-guided filter of a 4K f32 image: box means of I and I^2 over 9 x 9, the linear
// coefficients a and b per pixel, their box means, and the output a I + b.
Func box9(Func f, const std::string &name) {
    RDom r(-4, 9, name + "_r");
    Func bx(name + "_x"), b(name);
    bx(x, y) = sum(f(x + r, y));
    b(x, y) = sum(bx(x, y + r)) / 81.0f;
    return b;
}
P guided() {
    ImageParam in(Float(32), 2, "in");
    Param<float> eps("eps");
    eps.set_estimate(0.01f);
    Func cl = BoundaryConditions::repeat_edge(in);
    Func sq("sq"), a("a"), b("b"), out("out");
    sq(x, y) = cl(x, y) * cl(x, y);
    Func mean_i = box9(cl, "mean_i"), corr_i = box9(sq, "corr_i");
    Expr var = corr_i(x, y) - mean_i(x, y) * mean_i(x, y);
    a(x, y) = var / (var + eps);
    b(x, y) = mean_i(x, y) - a(x, y) * mean_i(x, y);
    Func mean_a = box9(a, "mean_a"), mean_b = box9(b, "mean_b");
    out(x, y) = mean_a(x, y) * cl(x, y) + mean_b(x, y);
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in, eps}};
}
// Three explicit steps of heat diffusion (a 7-point stencil) on a 256^3 f32 volume, edges clamped.
P heat3d() {
    ImageParam in(Float(32), 3, "in");
    Func f = BoundaryConditions::repeat_edge(in);
    for (int s = 0; s < 3; s++) {
        Func g("step" + std::to_string(s));
        g(x, y, z) = f(x, y, z) + 0.1f * (f(x - 1, y, z) + f(x + 1, y, z) + f(x, y - 1, z) + f(x, y + 1, z) +
                                          f(x, y, z - 1) + f(x, y, z + 1) - 6.0f * f(x, y, z));
        f = g;
    }
    Func out("out");
    out(x, y, z) = f(x, y, z);
    in.set_estimates({{0, 256}, {0, 256}, {0, 256}});
    out.set_estimates({{0, 256}, {0, 256}, {0, 256}});
    return {{out}, {in}};
}
// Four generations of the game of life on a 4096 x 4096 8-bit board that wraps around (each
// generation read through repeat_image over the board's extents).
P life() {
    ImageParam in(UInt(8), 2, "in");
    Expr w = in.dim(0).extent(), h = in.dim(1).extent();
    Func alive("alive");
    alive(x, y) = cast<uint8_t>(in(x, y) > 200);
    Func g = BoundaryConditions::repeat_image(alive, {{0, w}, {0, h}});
    for (int s = 0; s < 4; s++) {
        Func next("gen" + std::to_string(s));
        Expr n = g(x - 1, y - 1) + g(x, y - 1) + g(x + 1, y - 1) + g(x - 1, y) + g(x + 1, y) + g(x - 1, y + 1) +
                 g(x, y + 1) + g(x + 1, y + 1);
        next(x, y) = cast<uint8_t>(n == 3 || (g(x, y) == 1 && n == 2));
        g = s == 3 ? next : BoundaryConditions::repeat_image(next, {{0, w}, {0, h}});
    }
    Func out("out");
    out(x, y) = g(x, y) * cast<uint8_t>(255);
    in.set_estimates({{0, 4096}, {0, 4096}});
    out.set_estimates({{0, 4096}, {0, 4096}});
    return {{out}, {in}};
}
// The cube root of 1 + |v| for every pixel of a 4K f32 image by a Param number of Newton steps,
// written as a Tuple update over an RDom of the steps (the second element a damped running mean of
// the iterates).
P newton() {
    ImageParam in(Float(32), 2, "in");
    Param<int> steps("steps");
    steps.set_estimate(12);
    RDom t(0, steps, "t");
    Func it("it"), out("out");
    Expr a = 1.0f + abs(in(x, y));
    it(x, y) = Tuple(a, 0.0f);
    Expr v = it(x, y)[0];
    it(x, y) = Tuple(v - (v * v * v - a) / (3.0f * v * v), 0.5f * it(x, y)[1] + 0.5f * v);
    out(x, y) = it(x, y)[0] + 0.1f * it(x, y)[1];
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in, steps}};
}
// One step of k-means over 2^20 points in the plane: each point's nearest of 16 centroids (a
// Tuple arg-min), then each centroid moved to the mean of its points (sums and counts scattered by
// label). Two outputs: the new centroids and their counts.
P kmeans() {
    ImageParam pts(Float(32), 2, "pts"), cen(Float(32), 2, "cen");
    RDom rk(0, cen.dim(0).extent(), "rk"), rp(0, pts.dim(0).extent(), "rp");
    Func dist("dist"), label("label"), acc("acc"), cnt("cnt"), moved("moved");
    Expr dx = pts(i, 0) - cen(k, 0), dy = pts(i, 1) - cen(k, 1);
    dist(k, i) = dx * dx + dy * dy;
    label(i) = argmin(dist(rk, i))[0];
    Expr at = clamp(label(rp), 0, cen.dim(0).extent() - 1);
    acc(k, d) = 0.0f;
    acc(at, d) += pts(rp, d);
    cnt(k) = 0;
    cnt(at) += 1;
    moved(k, d) = select(cnt(k) > 0, acc(k, d) / cast<float>(cnt(k)), cen(k, d));
    pts.set_estimates({{0, 1 << 20}, {0, 2}});
    cen.set_estimates({{0, 16}, {0, 2}});
    moved.set_estimates({{0, 16}, {0, 2}});
    cnt.set_estimates({{0, 16}});
    return {{moved, cnt}, {pts, cen}};
}
// A sparse matrix-vector product in ELL form: 2^18 rows of up to 32 entries (values and columns
// padded to 32 a row), each row's length in a buffer, read as the RDom's predicate.
P spmv() {
    ImageParam val(Float(32), 2, "val"), col(Int(32), 2, "col"), len(Int(32), 1, "len"), xv(Float(32), 1, "xv");
    RDom r(0, val.dim(0).extent(), "r");
    r.where(r < len(i) % 33);
    Func out("out");
    out(i) = sum(val(r, i) * xv(clamp(col(r, i), 0, xv.dim(0).extent() - 1)));
    val.set_estimates({{0, 32}, {0, 1 << 18}});
    col.set_estimates({{0, 32}, {0, 1 << 18}});
    len.set_estimates({{0, 1 << 18}});
    xv.set_estimates({{0, 1 << 18}});
    out.set_estimates({{0, 1 << 18}});
    return {{out}, {val, col, len, xv}};
}
// An unsharp mask of an interleaved 8-bit RGB 4K image (the channel innermost): a 3 x 3 sum per
// channel, the difference from its mean amplified by a Param amount in eighths (integer arithmetic,
// so that every schedule rounds alike).
P interleaved() {
    ImageParam in(UInt(8), 3, "in");
    Param<int> amount("amount");
    amount.set_estimate(12);
    Func cl = BoundaryConditions::repeat_edge(in);
    RDom r(-1, 3, -1, 3, "r");
    Func box("box"), out("out");
    box(c, x, y) = sum(cast<int>(cl(c, x + r.x, y + r.y)));
    Expr v = cast<int>(in(c, x, y));
    out(c, x, y) = cast<uint8_t>(clamp(v + (9 * v - box(c, x, y)) * amount / 72, 0, 255));
    in.set_estimates({{0, 3}, {0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3}, {0, 3840}, {0, 2160}});
    return {{out}, {in, amount}};
}
// A histogram of each channel of a planar 8-bit RGB 4K image (the channel a pure var of the
// scatter).
P chhist() {
    ImageParam in(UInt(8), 3, "in");
    RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
    Func hist("hist");
    hist(i, c) = 0;
    hist(cast<int>(in(r.x, r.y, c)), c) += 1;
    in.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    hist.set_estimates({{0, 256}, {0, 3}});
    return {{hist}, {in}};
}
// The mean of every Param-factor square of a 4K f32 image: a 960 x 540 result at the estimate.
P paramdown() {
    ImageParam in(Float(32), 2, "in");
    Param<int> factor("factor");
    factor.set_estimate(4);
    RDom r(0, factor, 0, factor, "r");
    Func out("out");
    out(x, y) = sum(in(x * factor + r.x, y * factor + r.y)) / cast<float>(factor * factor);
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 960}, {0, 540}});
    return {{out}, {in, factor}};
}
// Lucas-Kanade optical flow between two 1920 x 1080 f32 frames: the gradients, their products
// summed over a 5 x 5 window, and each pixel's 2 x 2 system solved (a Tuple output of u and v).
P lk() {
    ImageParam f0(Float(32), 2, "f0"), f1(Float(32), 2, "f1");
    Func a = BoundaryConditions::repeat_edge(f0), b = BoundaryConditions::repeat_edge(f1);
    Func ix("ix"), iy("iy"), it("it"), flow("flow");
    ix(x, y) = (a(x + 1, y) - a(x - 1, y)) * 0.5f;
    iy(x, y) = (a(x, y + 1) - a(x, y - 1)) * 0.5f;
    it(x, y) = b(x, y) - a(x, y);
    RDom w(-2, 5, -2, 5, "w");
    Expr gx = ix(x + w.x, y + w.y), gy = iy(x + w.x, y + w.y), gt = it(x + w.x, y + w.y);
    Expr sxx = sum(gx * gx), syy = sum(gy * gy), sxy = sum(gx * gy), sxt = sum(gx * gt), syt = sum(gy * gt);
    Expr det = sxx * syy - sxy * sxy + 1e-3f;
    flow(x, y) = Tuple((sxy * syt - syy * sxt) / det, (sxy * sxt - sxx * syt) / det);
    f0.set_estimates({{0, 1920}, {0, 1080}});
    f1.set_estimates({{0, 1920}, {0, 1080}});
    flow.set_estimates({{0, 1920}, {0, 1080}});
    return {{flow}, {f0, f1}};
}
// The two largest values of each row of a 4096 x 4096 f32 image, a Tuple update along the row
// (no RDom split applies to it), written out as a Tuple.
P top2() {
    ImageParam in(Float(32), 2, "in");
    RDom r(0, in.dim(0).extent(), "r");
    Func top("top");
    top(y) = Tuple(Float(32).min(), Float(32).min());
    Expr v = in(r, y), first = top(y)[0], second = top(y)[1];
    top(y) = Tuple(max(first, v), select(v > first, first, max(second, v)));
    in.set_estimates({{0, 4096}, {0, 4096}});
    top.set_estimates({{0, 4096}});
    return {{top}, {in}};
}
// A 1920 x 1080 f32 image upsampled by a Param scale (a 4K result at the estimate) with
// Catmull-Rom weights, along x and then along y.
Expr cubic(Expr t, Expr tap) {
    // The weight of tap 0..3 at fraction t in [0, 1).
    Expr t2 = t * t, t3 = t2 * t;
    return select(tap == 0, (-t3 + 2.0f * t2 - t) * 0.5f, tap == 1, (3.0f * t3 - 5.0f * t2 + 2.0f) * 0.5f, tap == 2,
                  (-3.0f * t3 + 4.0f * t2 + t) * 0.5f, (t3 - t2) * 0.5f);
}
P bicubic() {
    ImageParam in(Float(32), 2, "in");
    Param<float> scale("scale");
    scale.set_estimate(2.0f);
    Func cl = BoundaryConditions::repeat_edge(in);
    RDom r(0, 4, "r");
    Expr sx = (cast<float>(x) + 0.5f) / scale - 0.5f, sy = (cast<float>(y) + 0.5f) / scale - 0.5f;
    Expr fx = floor(sx), fy = floor(sy);
    Func hx("hx"), out("out");
    hx(x, y) = sum(cl(cast<int>(fx) - 1 + r, y) * cubic(sx - fx, r));
    out(x, y) = sum(hx(x, cast<int>(fy) - 1 + r) * cubic(sy - fy, r));
    in.set_estimates({{0, 1920}, {0, 1080}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in, scale}};
}

}  // namespace

void add_pipelines_f(Registry &r) {
    r.emplace("guided", guided);
    r.emplace("heat3d", heat3d);
    r.emplace("life", life);
    r.emplace("newton", newton);
    r.emplace("kmeans", kmeans);
    r.emplace("spmv", spmv);
    r.emplace("interleaved", interleaved);
    r.emplace("chhist", chhist);
    r.emplace("paramdown", paramdown);
    r.emplace("lk", lk);
    r.emplace("top2", top2);
    r.emplace("bicubic", bicubic);
}

}  // namespace user_pipelines
