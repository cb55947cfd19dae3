// User pipelines, second set: 8- and 16-bit and f16 types, a pyramid with every level an output,
// a table computed from a Param, batch statistics, a matrix product, strided pooling, a transposed
// read beside the in-place one, a scatter-add, a Tuple arg-max over long rows, a column scan, two
// outputs of different shapes, an upsample, interleaved channels, an affine warp, stereo block
// matching, normalizations by a channel sum or a whole-image statistic, a multi-channel convolution.
#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var x("x"), y("y"), c("c"), n("n");

// A Sobel gradient magnitude of an 8-bit 4K image, 16-bit gradients, saturated to 8 bits.
P sobel() {
    ImageParam in(UInt(8), 2, "in");
    Func cl = BoundaryConditions::repeat_edge(in);
    Func v("v"), gx("gx"), gy("gy"), out("out");
    v(x, y) = cast<int16_t>(cl(x, y));
    gx(x, y) =
        (v(x + 1, y - 1) + 2 * v(x + 1, y) + v(x + 1, y + 1)) - (v(x - 1, y - 1) + 2 * v(x - 1, y) + v(x - 1, y + 1));
    gy(x, y) =
        (v(x - 1, y + 1) + 2 * v(x, y + 1) + v(x + 1, y + 1)) - (v(x - 1, y - 1) + 2 * v(x, y - 1) + v(x + 1, y - 1));
    Expr m = sqrt(cast<float>(gx(x, y)) * gx(x, y) + cast<float>(gy(x, y)) * gy(x, y));
    out(x, y) = saturating_cast<uint8_t>(m);
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in}};
}
// A four-level Gaussian pyramid of a 4K f32 image, every level an output.
P pyramid() {
    ImageParam in(Float(32), 2, "in");
    std::vector<Func> lv(5);
    lv[0] = BoundaryConditions::repeat_edge(in);
    std::vector<Func> outs;
    int w = 3840, h = 2160;
    for (int l = 1; l <= 4; l++) {
        Func dx("dx" + std::to_string(l)), d("level" + std::to_string(l));
        Func &p = lv[l - 1];
        dx(x, y) = (p(2 * x - 1, y) + 3 * p(2 * x, y) + 3 * p(2 * x + 1, y) + p(2 * x + 2, y)) * 0.125f;
        d(x, y) = (dx(x, 2 * y - 1) + 3 * dx(x, 2 * y) + 3 * dx(x, 2 * y + 1) + dx(x, 2 * y + 2)) * 0.125f;
        w /= 2, h /= 2;
        d.set_estimates({{0, w}, {0, h}});
        // The next level reads this one past its edges: repeated, as the input's are.
        lv[l] = BoundaryConditions::repeat_edge(d, {{0, in.dim(0).extent() >> l}, {0, in.dim(1).extent() >> l}});
        outs.push_back(d);
    }
    in.set_estimates({{0, 3840}, {0, 2160}});
    return {outs, {in}};
}
// A tone curve: a 65536-entry table computed from a gamma Param, looked up by a 16-bit RGB image.
P tonecurve() {
    ImageParam in(UInt(16), 3, "in");
    Param<float> gamma("gamma");
    gamma.set_estimate(2.2f);
    Func lut("lut"), out("out");
    Var i("i");
    lut(i) = cast<uint8_t>(clamp(pow(cast<float>(i) / 65535.0f, 1.0f / gamma) * 255.0f + 0.5f, 0.0f, 255.0f));
    out(x, y, c) = lut(cast<int>(in(x, y, c)));
    in.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    out.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    return {{out}, {in, gamma}};
}
// Batch normalization of an NCHW f32 tensor with its own statistics: per channel over the
// batch and the plane.
P batchnorm() {
    ImageParam in(Float(32), 4, "in");
    RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), 0, in.dim(3).extent(), "r");
    Expr cnt = cast<float>(in.dim(0).extent() * in.dim(1).extent() * in.dim(3).extent());
    Func mean("mean"), var("var"), out("out");
    mean(c) = sum(in(r.x, r.y, c, r.z)) / cnt;
    Expr d = in(r.x, r.y, c, r.z) - mean(c);
    var(c) = sum(d * d) / cnt;
    out(x, y, c, n) = (in(x, y, c, n) - mean(c)) / sqrt(var(c) + 1e-5f);
    in.set_estimates({{0, 56}, {0, 56}, {0, 128}, {0, 32}});
    out.set_estimates({{0, 56}, {0, 56}, {0, 128}, {0, 32}});
    return {{out}, {in}};
}
// A 1024 x 1024 x 1024 f32 matrix product.
P gemm() {
    ImageParam A(Float(32), 2, "A"), B(Float(32), 2, "B");
    RDom k(0, A.dim(0).extent(), "k");
    Func out("out");
    out(x, y) = 0.0f;
    out(x, y) += A(k, y) * B(x, k);
    A.set_estimates({{0, 1024}, {0, 1024}});
    B.set_estimates({{0, 1024}, {0, 1024}});
    out.set_estimates({{0, 1024}, {0, 1024}});
    return {{out}, {A, B}};
}
// An alpha blend of two f16 images, computed in f32.
P blend16() {
    ImageParam a(Float(16), 3, "a"), b(Float(16), 3, "b"), al(Float(16), 2, "al");
    Func out("out");
    Expr t = cast<float>(al(x, y));
    out(x, y, c) = cast<float16_t>(cast<float>(a(x, y, c)) * t + cast<float>(b(x, y, c)) * (1.0f - t));
    a.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    b.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    al.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    return {{out}, {a, b, al}};
}
// A per-pixel gain applied to each channel of a planar f32 RGB image.
P gain() {
    ImageParam in(Float(32), 3, "in"), g(Float(32), 2, "g");
    Func out("out");
    out(x, y, c) = in(x, y, c) * g(x, y) + 0.125f;
    in.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    g.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    return {{out}, {in, g}};
}
// f16 arithmetic throughout: a scaled sum of two f16 images stored as f16.
P f16math() {
    ImageParam a(Float(16), 2, "a"), b(Float(16), 2, "b");
    Func out("out");
    out(x, y) = a(x, y) * b(x, y) + a(x, y);
    a.set_estimates({{0, 3840}, {0, 2160}});
    b.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {a, b}};
}
// An f16 image flipped upside down: f16 values copied, no arithmetic.
P f16flip() {
    ImageParam a(Float(16), 2, "a");
    Func out("out");
    out(x, y) = a(x, a.dim(1).extent() - 1 - y);
    a.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {a}};
}
// A 3 x 3 max pool with stride 2 and padding 1 of a 112 x 112 x 64 x 32 f32 tensor.
P maxpool() {
    ImageParam in(Float(32), 4, "in");
    Func cl = BoundaryConditions::constant_exterior(in, -1e30f);
    RDom r(0, 3, 0, 3, "r");
    Func out("out");
    out(x, y, c, n) = maximum(cl(2 * x + r.x - 1, 2 * y + r.y - 1, c, n));
    in.set_estimates({{0, 112}, {0, 112}, {0, 64}, {0, 32}});
    out.set_estimates({{0, 56}, {0, 56}, {0, 64}, {0, 32}});
    return {{out}, {in}};
}
// The symmetric part of a 4096 x 4096 f32 matrix: its values read in place and transposed.
P symmetrize() {
    ImageParam in(Float(32), 2, "in");
    Func out("out");
    out(x, y) = (in(x, y) + in(y, x)) * 0.5f;
    in.set_estimates({{0, 4096}, {0, 4096}});
    out.set_estimates({{0, 4096}, {0, 4096}});
    return {{out}, {in}};
}
// A difference of Gaussians: a 3-tap and a 5-tap separable blur of one image, subtracted.
P dog() {
    ImageParam in(Float(32), 2, "in");
    Func cl = BoundaryConditions::repeat_edge(in);
    Func b3x("b3x"), b3("b3"), b5x("b5x"), b5("b5"), out("out");
    b3x(x, y) = (cl(x - 1, y) + 2 * cl(x, y) + cl(x + 1, y)) * 0.25f;
    b3(x, y) = (b3x(x, y - 1) + 2 * b3x(x, y) + b3x(x, y + 1)) * 0.25f;
    b5x(x, y) = (cl(x - 2, y) + 4 * cl(x - 1, y) + 6 * cl(x, y) + 4 * cl(x + 1, y) + cl(x + 2, y)) * 0.0625f;
    b5(x, y) = (b5x(x, y - 2) + 4 * b5x(x, y - 1) + 6 * b5x(x, y) + 4 * b5x(x, y + 1) + b5x(x, y + 2)) * 0.0625f;
    out(x, y) = b3(x, y) - b5(x, y);
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in}};
}
// 16M f32 values added into 65536 bins named by a 16-bit index buffer (a scatter-add).
P scatter() {
    ImageParam val(Float(32), 1, "val"), idx(UInt(16), 1, "idx");
    RDom r(0, val.dim(0).extent(), "r");
    Func out("out");
    out(x) = 0.0f;
    out(cast<int>(idx(r))) += val(r);
    val.set_estimates({{0, 1 << 24}});
    idx.set_estimates({{0, 1 << 24}});
    out.set_estimates({{0, 65536}});
    return {{out}, {val, idx}};
}
// The arg-max of each of 512 rows of 32000 logits (the inline `argmax`, a Tuple reduction over a
// long row).
P argmax() {
    ImageParam in(Float(32), 2, "in");
    RDom r(0, in.dim(0).extent(), "r");
    Func out("out");
    out(y) = argmax(in(r, y))[0];
    in.set_estimates({{0, 32000}, {0, 512}});
    out.set_estimates({{0, 512}});
    return {{out}, {in}};
}
// The cumulative sum down each column of 4096 x 4096 f32 (a scan along the outer dim).
P prefix_cols() {
    ImageParam in(Float(32), 2, "in");
    RDom r(1, in.dim(1).extent() - 1, "r");
    Func cs("cs");
    cs(x, y) = in(x, y);
    cs(x, r) += cs(x, r - 1);
    in.set_estimates({{0, 4096}, {0, 4096}});
    cs.set_estimates({{0, 4096}, {0, 4096}});
    return {{cs}, {in}};
}
// An 8-bit planar RGB image to grey, and the grey image's 256-bin histogram: two outputs.
P greyhist() {
    ImageParam in(UInt(8), 3, "in");
    Func grey("grey"), hist("hist");
    grey(x, y) = cast<uint8_t>((77 * cast<uint16_t>(in(x, y, 0)) + 150 * cast<uint16_t>(in(x, y, 1)) +
                                29 * cast<uint16_t>(in(x, y, 2)) + 128) >>
                               8);
    RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
    hist(x) = 0;
    hist(cast<int>(grey(r.x, r.y))) += 1;
    in.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    grey.set_estimates({{0, 3840}, {0, 2160}});
    hist.set_estimates({{0, 256}});
    return {{grey, hist}, {in}};
}
// A pyramid level rebuilt: the coarse level upsampled 2x (bilinear) plus the detail.
P upsample() {
    ImageParam coarse(Float(32), 2, "coarse"), detail(Float(32), 2, "detail");
    Func cl = BoundaryConditions::repeat_edge(coarse);
    Func ux("ux"), out("out");
    ux(x, y) = 0.75f * cl(x / 2, y) + 0.25f * cl(x / 2 + 2 * (x % 2) - 1, y);
    out(x, y) = detail(x, y) + 0.75f * ux(x, y / 2) + 0.25f * ux(x, y / 2 + 2 * (y % 2) - 1);
    coarse.set_estimates({{0, 1920}, {0, 1080}});
    detail.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {coarse, detail}};
}
// An interleaved 8-bit RGB image (channels innermost) to planar f32 YCbCr.
P ycbcr() {
    ImageParam in(UInt(8), 3, "in");
    Func f("f"), out("out");
    f(c, x, y) = cast<float>(in(c, x, y)) * (1.0f / 255.0f);
    Expr r = f(0, x, y), g = f(1, x, y), b = f(2, x, y);
    out(x, y, c) =
        select(c == 0, 0.299f * r + 0.587f * g + 0.114f * b, c == 1, 0.5f - 0.168736f * r - 0.331264f * g + 0.5f * b,
               0.5f + 0.5f * r - 0.418688f * g - 0.081312f * b);
    in.set_estimates({{0, 3}, {0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    return {{out}, {in}};
}

// Each pixel's channels divided by their L2 norm (a sum over the channels read by every channel).
P l2norm() {
    ImageParam in(Float(32), 3, "in");
    RDom r(0, in.dim(2).extent(), "r");
    Func ss("ss"), out("out");
    ss(x, y) = sum(in(x, y, r) * in(x, y, r));
    out(x, y, c) = in(x, y, c) / sqrt(ss(x, y) + 1e-6f);
    in.set_estimates({{0, 1920}, {0, 1080}, {0, 16}});
    out.set_estimates({{0, 1920}, {0, 1080}, {0, 16}});
    return {{out}, {in}};
}
// An affine warp (rotation and scale by Params) with bilinear sampling, zero outside.
P warp() {
    ImageParam in(Float(32), 2, "in");
    Param<float> a("a"), b("b");
    a.set_estimate(0.9f);
    b.set_estimate(0.3f);
    Func cl = BoundaryConditions::constant_exterior(in, 0.0f);
    Func out("out");
    Expr cx = in.dim(0).extent() / 2.0f, cy = in.dim(1).extent() / 2.0f;
    Expr u = a * (x - cx) - b * (y - cy) + cx, v = b * (x - cx) + a * (y - cy) + cy;
    Expr iu = cast<int>(floor(u)), iv = cast<int>(floor(v));
    Expr fu = u - iu, fv = v - iv;
    out(x, y) = lerp(lerp(cl(iu, iv), cl(iu + 1, iv), fu), lerp(cl(iu, iv + 1), cl(iu + 1, iv + 1), fu), fv);
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in, a, b}};
}
// Stereo block matching: for each pixel, the disparity (of 32) with the least 5 x 5 sum of absolute
// differences between the left image and the right one shifted.
P stereo() {
    ImageParam L(UInt(8), 2, "L"), R(UInt(8), 2, "R");
    Func cl = BoundaryConditions::repeat_edge(L), cr = BoundaryConditions::repeat_edge(R);
    Var d("d");
    Func diff("diff"), sad("sad"), out("out");
    diff(x, y, d) = cast<uint16_t>(absd(cl(x, y), cr(x - d, y)));
    RDom w(-2, 5, -2, 5, "w");
    sad(x, y, d) = sum(diff(x + w.x, y + w.y, d));
    RDom rd(0, 32, "rd");
    out(x, y) = cast<uint8_t>(argmin(sad(x, y, rd))[0]);
    L.set_estimates({{0, 1920}, {0, 1080}});
    R.set_estimates({{0, 1920}, {0, 1080}});
    out.set_estimates({{0, 1920}, {0, 1080}});
    return {{out}, {L, R}};
}
// An image divided by its largest absolute value (a total reduction read by every point).
P normmax() {
    ImageParam in(Float(32), 2, "in");
    RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
    Func mx("mx"), out("out");
    mx() = maximum(abs(in(r.x, r.y)));
    out(x, y) = in(x, y) / mx();
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in}};
}
// Reinhard tone mapping of an RGB f32 image by its log-average luminance (summed in f64).
P reinhard() {
    ImageParam in(Float(32), 3, "in");
    Func lum("lum"), lavg("lavg"), out("out");
    lum(x, y) = max(0.2126f * in(x, y, 0) + 0.7152f * in(x, y, 1) + 0.0722f * in(x, y, 2), 0.0f);
    RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
    // (The sum of 8 million logarithms in f64: in f32 a serial sum drifts by over 1e-3.)
    lavg() = cast<float>(
        exp(sum(cast<double>(log(lum(r.x, r.y) + 1e-4f))) / cast<double>(in.dim(0).extent() * in.dim(1).extent())));
    Expr l = lum(x, y) * (0.18f / lavg());
    out(x, y, c) = in(x, y, c) * (l / (1.0f + l)) / (lum(x, y) + 1e-6f);
    in.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    out.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    return {{out}, {in}};
}
// A 3 x 3 convolution of 16 channels into 16, zero padded, then a ReLU (a small CNN layer).
P conv3c() {
    ImageParam in(Float(32), 3, "in"), w(Float(32), 4, "w");
    Func cl = BoundaryConditions::constant_exterior(in, 0.0f);
    RDom r(0, 3, 0, 3, 0, in.dim(2).extent(), "r");
    Var k("k");
    Func conv("conv"), out("out");
    conv(x, y, k) = sum(cl(x + r.x - 1, y + r.y - 1, r.z) * w(r.x, r.y, r.z, k));
    out(x, y, k) = max(conv(x, y, k), 0.0f);
    in.set_estimates({{0, 512}, {0, 512}, {0, 16}});
    w.set_estimates({{0, 3}, {0, 3}, {0, 16}, {0, 16}});
    out.set_estimates({{0, 512}, {0, 512}, {0, 16}});
    return {{out}, {in, w}};
}

}  // namespace

void add_pipelines_b(Registry &r) {
    r.emplace("sobel", sobel);
    r.emplace("pyramid", pyramid);
    r.emplace("tonecurve", tonecurve);
    r.emplace("batchnorm", batchnorm);
    r.emplace("gemm", gemm);
    r.emplace("blend16", blend16);
    r.emplace("gain", gain);
    r.emplace("f16math", f16math);
    r.emplace("f16flip", f16flip);
    r.emplace("maxpool", maxpool);
    r.emplace("symmetrize", symmetrize);
    r.emplace("dog", dog);
    r.emplace("scatter", scatter);
    r.emplace("argmax", argmax);
    r.emplace("prefix_cols", prefix_cols);
    r.emplace("greyhist", greyhist);
    r.emplace("upsample", upsample);
    r.emplace("ycbcr", ycbcr);
    r.emplace("l2norm", l2norm);
    r.emplace("warp", warp);
    r.emplace("stereo", stereo);
    r.emplace("normmax", normmax);
    r.emplace("reinhard", reinhard);
    r.emplace("conv3c", conv3c);
}

}  // namespace user_pipelines
