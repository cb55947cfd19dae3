// Fortieth set: four pipelines as users write them: the mean of each channel down each column of
// an interleaved 8-bit RGB image; an Adam optimizer step over a parameter tensor (three outputs of
// one shape, the step count and the rates Params); and the SSIM of two images (Gaussian windowed
// means, variances and covariance, each blur two passes), its map and the map's mean.
#include <cmath>

#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var x("x"), y("y"), c("c");

// The mean of each channel down each column of an interleaved 8-bit RGB 4K image (channels
// innermost): a 3 x 3840 f32 result.
P colmeanrgb() {
    ImageParam in(UInt(8), 3, "in");
    Expr h = in.dim(2).extent();
    RDom r(0, h, "r");
    Func out("out");
    out(c, x) = sum(cast<float>(in(c, x, r))) / cast<float>(h);
    in.dim(0).set_stride(1);
    in.dim(1).set_stride(3);
    in.set_estimates({{0, 3}, {0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3}, {0, 3840}});
    return {{out}, {in}};
}

// One Adam step over a 1-D f32 parameter tensor of 64M values: the new first and second moments
// and the new parameters, with the bias corrections of step `t` (a Param, as are the rates).
P adamstep() {
    ImageParam p(Float(32), 1, "p"), g(Float(32), 1, "g"), m(Float(32), 1, "m"), v(Float(32), 1, "v");
    Param<float> lr("lr"), beta1("beta1"), beta2("beta2"), eps("eps");
    Param<int> t("t");
    lr.set_estimate(1e-3f);
    beta1.set_estimate(0.9f);
    beta2.set_estimate(0.999f);
    eps.set_estimate(1e-8f);
    t.set_estimate(10);
    Var i("i");
    Func m2("m2"), v2("v2"), p2("p2");
    m2(i) = beta1 * m(i) + (1.0f - beta1) * g(i);
    // (The second moment is never negative; the clamp keeps random inputs meaningful.)
    v2(i) = beta2 * max(v(i), 0.0f) + (1.0f - beta2) * g(i) * g(i);
    Expr mhat = m2(i) / (1.0f - pow(beta1, cast<float>(t)));
    Expr vhat = v2(i) / (1.0f - pow(beta2, cast<float>(t)));
    p2(i) = p(i) - lr * mhat / (sqrt(vhat) + eps);
    for (ImageParam *b : {&p, &g, &m, &v}) b->set_estimates({{0, 1 << 26}});
    for (Func *f : {&m2, &v2, &p2}) f->set_estimates({{0, 1 << 26}});
    return {{p2, m2, v2}, {p, g, m, v, lr, beta1, beta2, eps, t}};
}

// The structural similarity (SSIM) map of two 2K f32 grey images: each one's local mean and
// variance and their covariance under an 11-tap Gaussian window (sigma 1.5, two passes each), and
// the SSIM at each pixel from those. `ssim` outputs the map's mean over the image (0-d), `ssimmap`
// the map.
Func ssim_map(ImageParam a, ImageParam b) {
    Func ca = BoundaryConditions::mirror_interior(a), cb = BoundaryConditions::mirror_interior(b);
    float norm = 0.0f;
    for (int k = -5; k <= 5; k++) norm += std::exp(-float(k * k) / 4.5f);
    Func w("w");
    Var t("t");
    w(t) = exp(-cast<float>(t * t) / 4.5f) / norm;
    RDom k(-5, 11, "k");
    auto blur = [&](Func f, const std::string &name) {
        Func bx(name + "_x"), by(name);
        bx(x, y) = sum(f(x + k, y) * w(k));
        by(x, y) = sum(bx(x, y + k) * w(k));
        return by;
    };
    Func aa("aa"), bb("bb"), ab("ab");
    aa(x, y) = ca(x, y) * ca(x, y);
    bb(x, y) = cb(x, y) * cb(x, y);
    ab(x, y) = ca(x, y) * cb(x, y);
    Func mu_a = blur(ca, "mu_a"), mu_b = blur(cb, "mu_b"), e_aa = blur(aa, "e_aa"), e_bb = blur(bb, "e_bb"),
         e_ab = blur(ab, "e_ab");
    const float c1 = 0.01f * 0.01f, c2 = 0.03f * 0.03f;
    Func map("map");
    Expr ma = mu_a(x, y), mb = mu_b(x, y);
    Expr va = e_aa(x, y) - ma * ma, vb = e_bb(x, y) - mb * mb, cov = e_ab(x, y) - ma * mb;
    map(x, y) = ((2.0f * ma * mb + c1) * (2.0f * cov + c2)) / ((ma * ma + mb * mb + c1) * (va + vb + c2));
    a.set_estimates({{0, 2048}, {0, 2048}});
    b.set_estimates({{0, 2048}, {0, 2048}});
    return map;
}

P ssim() {
    ImageParam a(Float(32), 2, "a"), b(Float(32), 2, "b");
    Func map = ssim_map(a, b), mean("mean");
    RDom r(0, a.dim(0).extent(), 0, a.dim(1).extent(), "r");
    mean() = sum(map(r.x, r.y)) / cast<float>(a.dim(0).extent() * a.dim(1).extent());
    return {{mean}, {a, b}};
}

P ssimmap() {
    ImageParam a(Float(32), 2, "a"), b(Float(32), 2, "b");
    Func map = ssim_map(a, b);
    map.set_estimates({{0, 2048}, {0, 2048}});
    return {{map}, {a, b}};
}

}  // namespace

void add_pipelines_an(Registry &r) {
    r.emplace("colmeanrgb", colmeanrgb);
    r.emplace("adamstep", adamstep);
    r.emplace("ssim", ssim);
    r.emplace("ssimmap", ssimmap);
}

}  // namespace user_pipelines
