// User pipelines, twentieth set: classic image-processing and signal code as Halide users write it:
// a bilateral grid (a scatter of each 8 x 8 tile's pixels into intensity bins, the grid blurred along
// each axis, sliced back by trilinear interpolation), non-local means (patch distances for each of
// 7 x 7 offsets, box-filtered, weighted sums over the offsets), a Harris corner response (Sobel
// gradients of the luma, their products summed over 3 x 3 windows), the magnitude spectrum of each
// row by a direct DFT (a Tuple of real and imaginary sums over the row's length), an unsharp mask of
// an RGB image (a Gaussian kernel Func built from a radius Param, luma blurred separably, each channel
// scaled by the sharpened luma's ratio), and a 3 x 3 convolution layer with channels innermost (bias,
// ReLU).
#include <cmath>

#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var x("x"), y("y"), z("z"), c("c"), n("n"), k("k"), dx("dx"), dy("dy");

// A bilateral grid over a 2560 x 1536 float image: 8 x 8 spatial cells, intensity bins 0.1 wide.
P bilgrid() {
    ImageParam in(Float(32), 2, "in");
    const int s = 8;
    const float inv_r = 10.0f;  // intensity bins of 0.1
    Func e = BoundaryConditions::repeat_edge(in);
    Func hist("hist"), bz("bz"), bx("bx"), by("by"), out("out");
    RDom r(0, s, 0, s, "r");
    Expr v = clamp(e(x * s + r.x - s / 2, y * s + r.y - s / 2), 0.0f, 1.0f);
    Expr zi = cast<int>(v * inv_r + 0.5f);
    hist(x, y, z, c) = 0.0f;
    hist(x, y, zi, c) += select(c == 0, v, 1.0f);
    bz(x, y, z, c) = hist(x, y, z - 2, c) + 4 * hist(x, y, z - 1, c) + 6 * hist(x, y, z, c) + 4 * hist(x, y, z + 1, c) +
                     hist(x, y, z + 2, c);
    bx(x, y, z, c) =
        bz(x - 2, y, z, c) + 4 * bz(x - 1, y, z, c) + 6 * bz(x, y, z, c) + 4 * bz(x + 1, y, z, c) + bz(x + 2, y, z, c);
    by(x, y, z, c) =
        bx(x, y - 2, z, c) + 4 * bx(x, y - 1, z, c) + 6 * bx(x, y, z, c) + 4 * bx(x, y + 1, z, c) + bx(x, y + 2, z, c);
    // Slice: the grid read at (x / s, y / s, value / r), interpolated in all three.
    Expr val = clamp(in(x, y), 0.0f, 1.0f);
    Expr zv = val * inv_r;
    Expr zf = zv - floor(zv);
    Expr zb = cast<int>(floor(zv));
    Expr xf = cast<float>(x % s) / s, yf = cast<float>(y % s) / s;
    Expr xb = x / s, yb = y / s;
    auto at = [&](Expr cc) {
        auto g = [&](Expr i, Expr j, Expr l) { return by(xb + i, yb + j, zb + l, cc); };
        Expr lo = lerp(lerp(g(0, 0, 0), g(1, 0, 0), xf), lerp(g(0, 1, 0), g(1, 1, 0), xf), yf);
        Expr hi = lerp(lerp(g(0, 0, 1), g(1, 0, 1), xf), lerp(g(0, 1, 1), g(1, 1, 1), xf), yf);
        return lerp(lo, hi, zf);
    };
    out(x, y) = at(0) / at(1);
    in.set_estimates({{0, 2560}, {0, 1536}});
    out.set_estimates({{0, 2560}, {0, 1536}});
    return {{out}, {in}};
}

// Non-local means of a 1536 x 1024 RGB image: 7 x 7 patches compared at each of 7 x 7 offsets, each
// offset weighted by exp(-distance / sigma^2), the weights' sum carried as a fourth channel.
P nlmeans() {
    ImageParam in(Float(32), 3, "in");
    Param<float> sigma("sigma");
    sigma.set_estimate(0.5f);
    Func e = BoundaryConditions::repeat_edge(in);
    Func d("d"), dby("dby"), dbx("dbx"), w("w"), acc("acc"), out("out");
    Expr d0 = e(x, y, 0) - e(x + dx, y + dy, 0), d1 = e(x, y, 1) - e(x + dx, y + dy, 1),
         d2 = e(x, y, 2) - e(x + dx, y + dy, 2);
    d(x, y, dx, dy) = d0 * d0 + d1 * d1 + d2 * d2;
    RDom p(-3, 7, "p");
    dby(x, y, dx, dy) = sum(d(x, y + p, dx, dy));
    dbx(x, y, dx, dy) = sum(dby(x + p, y, dx, dy));
    w(x, y, dx, dy) = exp(-dbx(x, y, dx, dy) / (49.0f * sigma * sigma));
    RDom o(-3, 7, -3, 7, "o");
    Expr alpha = select(c == 3, 1.0f, e(x + o.x, y + o.y, clamp(c, 0, 2)));
    acc(x, y, c) = 0.0f;
    acc(x, y, c) += w(x, y, o.x, o.y) * alpha;
    out(x, y, c) = acc(x, y, c) / acc(x, y, 3);
    in.set_estimates({{0, 1536}, {0, 1024}, {0, 3}});
    out.set_estimates({{0, 1536}, {0, 1024}, {0, 3}});
    return {{out}, {in, sigma}};
}

// The Harris corner response of a 3840 x 2160 RGB image: Sobel gradients of its luma, the products
// summed over each 3 x 3 window, det - 0.04 trace^2.
P harris() {
    ImageParam in(Float(32), 3, "in");
    Func e = BoundaryConditions::repeat_edge(in);
    Func gray("gray"), ix("ix"), iy("iy"), ixx("ixx"), iyy("iyy"), ixy("ixy"), sxx("sxx"), syy("syy"), sxy("sxy"),
        out("out");
    gray(x, y) = 0.299f * e(x, y, 0) + 0.587f * e(x, y, 1) + 0.114f * e(x, y, 2);
    ix(x, y) = (gray(x + 1, y - 1) + 2 * gray(x + 1, y) + gray(x + 1, y + 1)) -
               (gray(x - 1, y - 1) + 2 * gray(x - 1, y) + gray(x - 1, y + 1));
    iy(x, y) = (gray(x - 1, y + 1) + 2 * gray(x, y + 1) + gray(x + 1, y + 1)) -
               (gray(x - 1, y - 1) + 2 * gray(x, y - 1) + gray(x + 1, y - 1));
    ixx(x, y) = ix(x, y) * ix(x, y);
    iyy(x, y) = iy(x, y) * iy(x, y);
    ixy(x, y) = ix(x, y) * iy(x, y);
    RDom b(-1, 3, -1, 3, "b");
    sxx(x, y) = sum(ixx(x + b.x, y + b.y));
    syy(x, y) = sum(iyy(x + b.x, y + b.y));
    sxy(x, y) = sum(ixy(x + b.x, y + b.y));
    Expr det = sxx(x, y) * syy(x, y) - sxy(x, y) * sxy(x, y);
    Expr tr = sxx(x, y) + syy(x, y);
    out(x, y) = det - 0.04f * tr * tr;
    in.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in}};
}

// The magnitude spectrum of each of 4096 rows of 512 samples, by a direct DFT over the row's length:
// the real and imaginary sums a Tuple, the angle's index reduced mod the length before the float.
P dftrows() {
    ImageParam in(Float(32), 2, "in");
    Expr len = in.dim(0).extent();
    RDom r(0, len, "r");
    Func f("f"), out("out");
    Expr ang = (2.0f * float(M_PI)) * cast<float>((k * r) % len) / cast<float>(len);
    f(k, y) = Tuple(0.0f, 0.0f);
    f(k, y) = Tuple(f(k, y)[0] + in(r, y) * cos(ang), f(k, y)[1] - in(r, y) * sin(ang));
    out(k, y) = sqrt(f(k, y)[0] * f(k, y)[0] + f(k, y)[1] * f(k, y)[1]);
    in.set_estimates({{0, 512}, {0, 4096}});
    out.set_estimates({{0, 512}, {0, 4096}});
    return {{out}, {in}};
}

// An unsharp mask of a 3840 x 2160 planar RGB image: a Gaussian kernel over 2 radius + 1 taps (the
// radius a Param), the luma blurred by it down the columns then along the rows, and each channel
// scaled by the ratio of the sharpened luma to the luma.
P unsharp() {
    ImageParam in(Float(32), 3, "in");
    Param<int> radius("radius");
    radius.set_estimate(3);
    Func e = BoundaryConditions::mirror_image(in);
    Func kern("kern"), ksum("ksum"), gray("gray"), bly("bly"), blx("blx"), out("out");
    RDom t(-radius, 2 * radius + 1, "t");
    Expr sig = cast<float>(radius) / 2.0f + 0.5f;
    kern(x) = exp(-cast<float>(x * x) / (2.0f * sig * sig));
    ksum() = sum(kern(t));
    gray(x, y) = 0.299f * e(x, y, 0) + 0.587f * e(x, y, 1) + 0.114f * e(x, y, 2);
    bly(x, y) = sum(gray(x, y + t) * kern(t)) / ksum();
    blx(x, y) = sum(bly(x + t, y) * kern(t)) / ksum();
    Expr g = gray(x, y);
    Expr sharp = 2.0f * g - blx(x, y);
    out(x, y, c) = in(x, y, c) * select(abs(g) > 1e-3f, sharp / g, 1.0f);
    in.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    out.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    return {{out}, {in, radius}};
}

// A 3 x 3 convolution layer over a batch of 8 images of 128 x 128 with 64 channels in and out,
// channels innermost (input c, x, y, n; filter out-channel, in-channel, kx, ky), zero padding, bias
// and ReLU.
P convlayer() {
    ImageParam in(Float(32), 4, "in"), filt(Float(32), 4, "filt");
    ImageParam bias(Float(32), 1, "bias");
    Func pad = BoundaryConditions::constant_exterior(in, 0.0f);
    Func conv("conv"), out("out");
    RDom r(0, in.dim(0).extent(), 0, 3, 0, 3, "r");
    conv(k, x, y, n) = bias(k);
    conv(k, x, y, n) += filt(k, r.x, r.y, r.z) * pad(r.x, x + r.y - 1, y + r.z - 1, n);
    out(k, x, y, n) = max(conv(k, x, y, n), 0.0f);
    in.set_estimates({{0, 64}, {0, 128}, {0, 128}, {0, 8}});
    filt.set_estimates({{0, 64}, {0, 64}, {0, 3}, {0, 3}});
    bias.set_estimates({{0, 64}});
    out.set_estimates({{0, 64}, {0, 128}, {0, 128}, {0, 8}});
    return {{out}, {in, filt, bias}};
}

}  // namespace

void add_pipelines_t(Registry &r) {
    r.emplace("bilgrid", bilgrid);
    r.emplace("nlmeans", nlmeans);
    r.emplace("harris", harris);
    r.emplace("dftrows", dftrows);
    r.emplace("unsharp", unsharp);
    r.emplace("convlayer", convlayer);
}

}  // namespace user_pipelines
