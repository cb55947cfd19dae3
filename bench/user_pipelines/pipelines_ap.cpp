// Forty-second set: three imaging pipelines as users write them: scale-space extrema (four
// Gaussian blurs of one image, their three differences, and each pixel of the middle difference
// tested against its 26 neighbours across the three); Richardson-Lucy deconvolution, three
// iterations under a 5 x 5 Gaussian blur; and a radial profile (the mean intensity in each
// one-pixel ring around a centre given as Params: a Tuple of sums and counts scattered by radius).
#include <cmath>

#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var x("x"), y("y"), i("i");

// A separable Gaussian blur of `f` with standard deviation `sigma` (radius 3 sigma, rounded up).
Func gauss(Func f, float sigma, const std::string &name) {
    const int radius = int(std::ceil(3 * sigma));
    float norm = 0;
    for (int k = -radius; k <= radius; k++) norm += std::exp(-0.5f * k * k / (sigma * sigma));
    RDom k(-radius, 2 * radius + 1, name + "_k");
    Expr wk = exp(-0.5f * cast<float>(k * k) / (sigma * sigma)) / norm;
    Func bx(name + "_x"), by(name);
    bx(x, y) = sum(f(x + k, y) * wk);
    by(x, y) = sum(bx(x, y + k) * wk);
    return by;
}

// Scale-space extrema of a 2K f32 image: 1 where the middle difference of Gaussians is above a
// threshold in magnitude and the largest (or smallest) of its 3 x 3 x 3 neighbourhood, else 0.
P siftext() {
    ImageParam in(Float(32), 2, "in");
    Param<float> threshold("threshold");
    threshold.set_estimate(0.02f);
    Func clamped = BoundaryConditions::repeat_edge(in);
    Func g0 = gauss(clamped, 1.6f, "g0"), g1 = gauss(clamped, 2.0f, "g1"), g2 = gauss(clamped, 2.5f, "g2"),
         g3 = gauss(clamped, 3.2f, "g3");
    Func d0("d0"), d1("d1"), d2("d2");
    d0(x, y) = g1(x, y) - g0(x, y);
    d1(x, y) = g2(x, y) - g1(x, y);
    d2(x, y) = g3(x, y) - g2(x, y);
    Expr v = d1(x, y), hi = v, lo = v;
    Expr larger = cast<bool>(1), smaller = cast<bool>(1);
    for (int dy = -1; dy <= 1; dy++) {
        for (int dx = -1; dx <= 1; dx++) {
            for (Func d : {d0, d1, d2}) {
                if (dx == 0 && dy == 0 && d.name() == d1.name()) continue;
                larger = larger && v > d(x + dx, y + dy);
                smaller = smaller && v < d(x + dx, y + dy);
            }
        }
    }
    Func out("out");
    out(x, y) = select(abs(v) > threshold && (larger || smaller), cast<uint8_t>(1), cast<uint8_t>(0));
    in.set_estimates({{0, 2048}, {0, 2048}});
    out.set_estimates({{0, 2048}, {0, 2048}});
    return {{out}, {in, threshold}};
}

// Three Richardson-Lucy iterations on a 2K f32 image blurred by a 5 x 5 Gaussian (sigma 1, its
// own mirror): est' = est * blur(obs / blur(est)), starting from the observation (its values
// shifted positive).
P rldeconv() {
    ImageParam in(Float(32), 2, "in");
    Func obs("obs");
    Func clamped = BoundaryConditions::mirror_interior(in);
    obs(x, y) = clamped(x, y) + 1.5f;
    float w[5], norm = 0;
    for (int k = 0; k < 5; k++) norm += (w[k] = std::exp(-0.5f * (k - 2) * (k - 2)));
    auto blur = [&](Func f, const std::string &name) {
        Func bx(name + "_x"), by(name);
        Expr sx = 0.0f, sy = 0.0f;
        for (int k = 0; k < 5; k++) sx += f(x + k - 2, y) * (w[k] / norm);
        bx(x, y) = sx;
        for (int k = 0; k < 5; k++) sy += bx(x, y + k - 2) * (w[k] / norm);
        by(x, y) = sy;
        return by;
    };
    Func est = obs;
    for (int it = 0; it < 3; it++) {
        const std::string s = std::to_string(it);
        Func conv = blur(est, "conv" + s), ratio("ratio" + s), next("est" + s);
        ratio(x, y) = obs(x, y) / max(conv(x, y), 1e-3f);
        Func back = blur(ratio, "back" + s);
        next(x, y) = est(x, y) * back(x, y);
        est = next;
    }
    in.set_estimates({{0, 2048}, {0, 2048}});
    est.set_estimates({{0, 2048}, {0, 2048}});
    return {{est}, {in}};
}

// The mean value in each one-pixel ring around (cx, cy) of a 4K f32 image: bins of the rounded
// distance, a Tuple of the ring's sum and pixel count; 2048 rings (the farther pixels are left out).
P radprof() {
    ImageParam in(Float(32), 2, "in");
    Param<float> cx("cx"), cy("cy");
    cx.set_estimate(1920.0f);
    cy.set_estimate(1080.0f);
    RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
    Expr fx = cast<float>(r.x) - cx, fy = cast<float>(r.y) - cy;
    Expr radius = sqrt(fx * fx + fy * fy);
    r.where(radius < 2047.5f);
    // (Clamped too: Halide bounds the stores of a scatter by its index's range alone, and without
    // the clamp its all-root host schedule writes past the rings it allocates.)
    Expr bin = clamp(cast<int>(radius + 0.5f), 0, 2047);
    Func rings("rings"), out("out");
    rings(i) = Tuple(0.0f, 0);
    rings(bin) = Tuple(rings(bin)[0] + in(r.x, r.y), rings(bin)[1] + 1);
    out(i) = rings(i)[0] / cast<float>(max(rings(i)[1], 1));
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 2048}});
    return {{out}, {in, cx, cy}};
}

}  // namespace

void add_pipelines_ap(Registry &r) {
    r.emplace("siftext", siftext);
    r.emplace("rldeconv", rldeconv);
    r.emplace("radprof", radprof);
}

}  // namespace user_pipelines
