// User pipelines, twenty-first set: longer chains and odd access patterns as Halide users write
// them: a Daubechies-4 wavelet level (each row's low and high bands, then each column's: four
// subbands of half the size), a camera pipeline on a Bayer raw image in fixed point (hot-pixel
// suppression, bilinear demosaic, a 3 x 4 colour matrix given as a buffer, a tone curve built as a
// 1024-entry table from a contrast Param, a sharpening of each channel), a chain of ten 5 x 5
// averages over 16-bit pixels, the weight gradient of a 3 x 3 convolution layer (a sum over the
// batch and the whole image into a 3 x 3 x 64 x 64 filter) with its bias gradient, a bitonic sort of
// each 64-element run of every row (21 compare-exchange stages), and a circular max filter of Param
// radius (a scan over power-of-two column windows, each column of the disc read from the slice that
// covers its height).
#include <cmath>

#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var x("x"), y("y"), c("c"), b("b"), n("n"), t("t"), kx("kx"), ky("ky"), ci("ci"), co("co");

// One level of the Daubechies-4 wavelet transform of a 4096 x 4096 float image: rows split into
// low and high bands at half width, then each band's columns at half height; band b of the output
// is LL, LH, HL, HH.
P wavelet() {
    ImageParam in(Float(32), 2, "in");
    const float s3 = std::sqrt(3.0f), norm = 4.0f * std::sqrt(2.0f);
    const float h[4] = {(1 + s3) / norm, (3 + s3) / norm, (3 - s3) / norm, (1 - s3) / norm};
    const float g[4] = {h[3], -h[2], h[1], -h[0]};
    Func e = BoundaryConditions::mirror_interior(in);
    Func lo_x("lo_x"), hi_x("hi_x"), out("out");
    auto tap_x = [&](const float *k, Func f) {
        return k[0] * f(2 * x, y) + k[1] * f(2 * x + 1, y) + k[2] * f(2 * x + 2, y) + k[3] * f(2 * x + 3, y);
    };
    lo_x(x, y) = tap_x(h, e);
    hi_x(x, y) = tap_x(g, e);
    auto tap_y = [&](const float *k, Func f) {
        return k[0] * f(x, 2 * y) + k[1] * f(x, 2 * y + 1) + k[2] * f(x, 2 * y + 2) + k[3] * f(x, 2 * y + 3);
    };
    out(x, y, b) = mux(b, {tap_y(h, lo_x), tap_y(g, lo_x), tap_y(h, hi_x), tap_y(g, hi_x)});
    in.set_estimates({{0, 4096}, {0, 4096}});
    out.set_estimates({{0, 2048}, {0, 2048}, {0, 4}});
    return {{out}, {in}};
}

// A camera pipeline from a 12-bit Bayer raw (GRBG, 2592 x 1952 uint16, the bits above 12 masked)
// to 8-bit planar RGB of 2560 x 1920, in fixed point as camera code is: each pixel clamped to the
// largest of its four same-colour neighbours, the four colour planes demosaicked bilinearly, a 3 x 4
// matrix (a buffer of int16 gains and offsets, 8 fractional bits) applied, a tone curve (a
// 1024-entry table: a gamma-like bend, then a contrast Param) looked up, and each channel sharpened
// by a Param strength (4 fractional bits).
P camera() {
    ImageParam raw(UInt(16), 2, "raw");
    ImageParam matrix(Int(16), 2, "matrix");
    Param<int> contrast("contrast"), strength("strength");
    contrast.set_estimate(40);
    strength.set_estimate(16);
    Func e = BoundaryConditions::repeat_edge(raw);
    Func clean("clean"), r_r("r_r"), g_gr("g_gr"), g_gb("g_gb"), b_b("b_b");
    Func rgb("rgb"), corrected("corrected"), curve("curve"), toned("toned"), out("out");
    auto px = [&](Expr i, Expr j) { return cast<int32_t>(e(i, j) & 4095); };
    Expr hi = max(max(px(x - 2, y), px(x + 2, y)), max(px(x, y - 2), px(x, y + 2)));
    clean(x, y) = min(px(x, y), hi);
    // Quad (x, y) holds raw pixels (2x .. 2x+1, 2y .. 2y+1): G R on even rows, B G on odd ones.
    g_gr(x, y) = clean(2 * x, 2 * y);
    r_r(x, y) = clean(2 * x + 1, 2 * y);
    b_b(x, y) = clean(2 * x, 2 * y + 1);
    g_gb(x, y) = clean(2 * x + 1, 2 * y + 1);
    // Bilinear demosaic at full resolution: each output pixel (x, y) from the quads around it.
    Expr qx = x / 2, qy = y / 2;
    Expr odd_x = (x % 2) == 1, odd_y = (y % 2) == 1;
    // Green: measured at (even, even) and (odd, odd); elsewhere the mean of the four neighbours.
    Expr g_at_r = (g_gr(qx, qy) + g_gr(qx + 1, qy) + g_gb(qx, qy) + g_gb(qx, qy - 1)) / 4;
    Expr g_at_b = (g_gb(qx, qy) + g_gb(qx - 1, qy) + g_gr(qx, qy) + g_gr(qx, qy + 1)) / 4;
    Expr green = select(!odd_x && !odd_y, g_gr(qx, qy), odd_x && odd_y, g_gb(qx, qy), odd_x, g_at_r, g_at_b);
    // Red: measured at (odd, even); the mean of two or four reds elsewhere.
    Expr red = select(odd_x && !odd_y, r_r(qx, qy), !odd_x && !odd_y, (r_r(qx - 1, qy) + r_r(qx, qy)) / 2,
                      odd_x && odd_y, (r_r(qx, qy) + r_r(qx, qy + 1)) / 2,
                      (r_r(qx - 1, qy) + r_r(qx, qy) + r_r(qx - 1, qy + 1) + r_r(qx, qy + 1)) / 4);
    // Blue: measured at (even, odd).
    Expr blue = select(!odd_x && odd_y, b_b(qx, qy), odd_x && odd_y, (b_b(qx, qy) + b_b(qx + 1, qy)) / 2,
                       !odd_x && !odd_y, (b_b(qx, qy - 1) + b_b(qx, qy)) / 2,
                       (b_b(qx, qy - 1) + b_b(qx + 1, qy - 1) + b_b(qx, qy) + b_b(qx + 1, qy)) / 4);
    rgb(x, y, c) = mux(c, {red, green, blue});
    auto m = [&](int i) { return cast<int32_t>(matrix(i, c)); };
    corrected(x, y, c) = (m(3) + m(0) * rgb(x, y, 0) + m(1) * rgb(x, y, 1) + m(2) * rgb(x, y, 2)) >> 8;
    // The tone curve over 10-bit input (the 12-bit value >> 2): v (2048 - v) / 1024, then the
    // distance from mid-grey scaled by (100 + contrast) / 100.
    Expr g = x * (2048 - x) / 1024;
    curve(x) = cast<uint8_t>(clamp(512 + (g - 512) * (100 + contrast) / 100, 0, 1023) >> 2);
    toned(x, y, c) = curve(clamp(corrected(x, y, c) >> 2, 0, 1023));
    Expr tv = cast<int32_t>(toned(x, y, c));
    Expr blur = (cast<int32_t>(toned(x - 1, y, c)) + cast<int32_t>(toned(x + 1, y, c)) +
                 cast<int32_t>(toned(x, y - 1, c)) + cast<int32_t>(toned(x, y + 1, c)) + 2 * tv) /
                6;
    out(x, y, c) = cast<uint8_t>(clamp(tv + (strength * (tv - blur)) / 16, 0, 255));
    raw.set_estimates({{0, 2592}, {0, 1952}});
    matrix.set_estimates({{0, 4}, {0, 3}});
    out.set_estimates({{0, 2560}, {0, 1920}, {0, 3}});
    return {{out}, {raw, matrix, contrast, strength}};
}

// Ten 5 x 5 averages, each of the one before, over a 2560 x 1536 uint16 image (sums in 32 bits).
P stencilchain() {
    ImageParam in(UInt(16), 2, "in");
    Func prev = BoundaryConditions::repeat_edge(in);
    RDom r(-2, 5, -2, 5, "r");
    for (int i = 0; i < 10; i++) {
        Func s("avg" + std::to_string(i));
        s(x, y) = cast<uint16_t>(sum(cast<uint32_t>(prev(x + r.x, y + r.y))) / 25);
        prev = s;
    }
    Func out("out");
    out(x, y) = prev(x, y);
    in.set_estimates({{0, 2560}, {0, 1536}});
    out.set_estimates({{0, 2560}, {0, 1536}});
    return {{out}, {in}};
}

// The gradients of a 3 x 3 convolution layer's filter and bias: input and output gradient 56 x 56
// with 64 channels over a batch of 8 (x, y, channel, n), zero padding; the filter gradient sums, for
// each of 3 x 3 x 64 x 64 taps, the products over the batch and every pixel.
P wgrad() {
    ImageParam in(Float(32), 4, "in"), dout(Float(32), 4, "dout");
    Func pad = BoundaryConditions::constant_exterior(in, 0.0f);
    Func dw("dw"), db("db");
    RDom r(0, dout.dim(0).extent(), 0, dout.dim(1).extent(), 0, dout.dim(3).extent(), "r");
    dw(kx, ky, ci, co) = 0.0f;
    dw(kx, ky, ci, co) += pad(r.x + kx - 1, r.y + ky - 1, ci, r.z) * dout(r.x, r.y, co, r.z);
    db(co) = 0.0f;
    db(co) += dout(r.x, r.y, co, r.z);
    in.set_estimates({{0, 56}, {0, 56}, {0, 64}, {0, 8}});
    dout.set_estimates({{0, 56}, {0, 56}, {0, 64}, {0, 8}});
    dw.set_estimates({{0, 3}, {0, 3}, {0, 64}, {0, 64}});
    db.set_estimates({{0, 64}});
    return {{dw, db}, {in, dout}};
}

// A bitonic sort of each 64-element run of the rows of a 1024 x 16384 float image: for block sizes
// k = 2 .. 64 and strides j = k/2 .. 1, each element compared with the one j away and the smaller
// kept where the pair's order is ascending (runs alternate direction until the last merge).
P bitonic() {
    ImageParam in(Float(32), 2, "in");
    Func prev = BoundaryConditions::repeat_edge(in);
    int stage = 0;
    for (int k = 2; k <= 64; k *= 2) {
        for (int j = k / 2; j >= 1; j /= 2) {
            Func s("sort" + std::to_string(stage++));
            Expr low = (x & j) == 0;
            Expr a = prev(x, y);
            Expr other = prev(select(low, x + j, x - j), y);
            Expr ascending = k == 64 ? Expr(true) : ((x & k) == 0);
            s(x, y) = select(low == ascending, min(a, other), max(a, other));
            prev = s;
        }
    }
    Func out("out");
    out(x, y) = prev(x, y);
    in.set_estimates({{0, 1024}, {0, 16384}});
    out.set_estimates({{0, 1024}, {0, 16384}});
    return {{out}, {in}};
}

// A circular max filter of an RGB 1920 x 1080 float image, radius a Param up to 31: vmax(x, y, c, t)
// is the maximum of the 2^t pixels from y down (a scan over the rows and t), each column dx of the disc takes its
// height's maximum from the two slices that cover it, and the output the maximum over the columns.
P maxfilter() {
    ImageParam in(Float(32), 3, "in");
    Param<int> radius("radius");
    radius.set_estimate(12);
    const int slices = 6;
    Expr rad = clamp(radius, 0, 31);
    Func e = BoundaryConditions::repeat_edge(in);
    Func vmax("vmax"), height("height"), column("column"), out("out");
    vmax(x, y, c, t) = e(x, y, c);
    // The scan runs down each column, slice after slice, over the rows the disc can reach.
    RDom s(-32, in.dim(1).extent() + 64, 1, slices - 1, "s");
    vmax(x, s.x, c, s.y) = max(vmax(x, s.x, c, s.y - 1), vmax(x, s.x + clamp(1 << (s.y - 1), 1, 16), c, s.y - 1));
    // Half the height of the disc's column dx.
    height(x) = cast<int>(floor(sqrt(cast<float>(rad * rad - x * x) + 0.25f)));
    RDom d(-rad, 2 * rad + 1, "d");
    Expr h = clamp(height(d), 0, rad);  // (a table's value and shifts: clamped, so their reach is known)
    Expr w = 2 * h + 1;
    Expr lvl = select(w >= 32, 5, w >= 16, 4, w >= 8, 3, w >= 4, 2, w >= 2, 1, 0);
    Expr top = vmax(x + d, y - h, c, lvl);
    Expr bottom = vmax(x + d, y + h - clamp(1 << lvl, 1, 32) + 1, c, lvl);
    column(x, y, c) = maximum(max(top, bottom));
    out(x, y, c) = column(x, y, c);
    in.set_estimates({{0, 1920}, {0, 1080}, {0, 3}});
    out.set_estimates({{0, 1920}, {0, 1080}, {0, 3}});
    return {{out}, {in, radius}};
}

}  // namespace

void add_pipelines_u(Registry &r) {
    r.emplace("wavelet", wavelet);
    r.emplace("camera", camera);
    r.emplace("stencilchain", stencilchain);
    r.emplace("wgrad", wgrad);
    r.emplace("bitonic", bitonic);
    r.emplace("maxfilter", maxfilter);
}

}  // namespace user_pipelines
