// Twenty-seventh set: forms from Halide's own application domains. A radix-2 FFT of each row
// (complex values as Tuples, one Func per butterfly stage), a blur in linear light (sRGB decoded
// and encoded with pow), BLAS level 1 (axpy beside the dot product and the norm of its result),
// and a residual block (3 x 3 convolution, batch-norm scale and shift, ReLU, a second convolution,
// the input added back).
#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var x("x"), y("y"), c("c"), k("k"), n("n"), i("i");

// Each row's DFT over 1024 points, by decimation in time: the input in bit-reversed order, then
// log2(1024) butterfly stages, each a Func of Tuples (real, imaginary).
P fft1k() {
    constexpr int kLog = 10, kN = 1 << kLog;
    ImageParam in(Float(32), 2, "in");
    Func rev("rev");
    Expr r = 0;
    for (int b = 0; b < kLog; b++) r = r | (((x >> b) & 1) << (kLog - 1 - b));
    // (Clamped: Halide's bounds inference bounds no bitwise or, and every auto-scheduler's
    // schedule, and Halide's own, stops on the unbounded read without it.)
    rev(x, y) = Tuple(in(clamp(r, 0, kN - 1), y), 0.0f);
    Func prev = rev;
    for (int s = 1; s <= kLog; s++) {
        const int half = 1 << (s - 1);
        Func st("stage" + std::to_string(s));
        Expr j = x % (2 * half), base = x - j, t = j % half;
        Expr lo = base + t, hi = lo + half;
        Expr angle = -2.0f * float(M_PI) * cast<float>(t) / float(2 * half);
        Expr wr = cos(angle), wi = sin(angle);
        Expr hr = prev(hi, y)[0] * wr - prev(hi, y)[1] * wi;
        Expr hi_i = prev(hi, y)[0] * wi + prev(hi, y)[1] * wr;
        Expr sign = select(j < half, 1.0f, -1.0f);
        st(x, y) = Tuple(prev(lo, y)[0] + sign * hr, prev(lo, y)[1] + sign * hi_i);
        prev = st;
    }
    Func out("out");
    out(x, y, c) = select(c == 0, prev(x, y)[0], prev(x, y)[1]);
    in.dim(0).set_bounds(0, kN);
    in.set_estimates({{0, kN}, {0, 4096}});
    out.output_buffer().dim(0).set_bounds(0, kN);
    out.set_estimates({{0, kN}, {0, 4096}, {0, 2}});
    return {{out}, {in}};
}

// A 5 x 5 box blur of an 8-bit sRGB image in linear light.
P linblur() {
    ImageParam in(UInt(8), 3, "in");
    Func clamped = BoundaryConditions::repeat_edge(in);
    Func lin("lin"), bx("bx"), by("by"), out("out");
    Expr v = cast<float>(clamped(x, y, c)) / 255.0f;
    lin(x, y, c) = select(v <= 0.04045f, v / 12.92f, pow((v + 0.055f) / 1.055f, 2.4f));
    RDom t(-2, 5, "t");
    bx(x, y, c) = sum(lin(x + t, y, c)) / 5.0f;
    by(x, y, c) = sum(bx(x, y + t, c)) / 5.0f;
    Expr l = by(x, y, c);
    Expr e = select(l <= 0.0031308f, l * 12.92f, 1.055f * pow(l, 1.0f / 2.4f) - 0.055f);
    out(x, y, c) = cast<uint8_t>(clamp(e * 255.0f + 0.5f, 0.0f, 255.0f));
    in.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    out.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    return {{out}, {in}};
}

// z = alpha x + y, with dot(x, y) and ||z|| beside it.
P blas1() {
    ImageParam xv(Float(32), 1, "xv"), yv(Float(32), 1, "yv");
    Param<float> alpha("alpha", 1.0f);
    RDom r(0, xv.dim(0).extent(), "r");
    Func z("z"), dot("dot"), nrm("nrm");
    z(i) = alpha * xv(i) + yv(i);
    dot() = sum(xv(r) * yv(r));
    nrm() = sqrt(sum(z(r) * z(r)));
    xv.set_estimates({{0, 1 << 24}});
    yv.set_estimates({{0, 1 << 24}});
    alpha.set_estimate(0.5f);
    z.set_estimates({{0, 1 << 24}});
    return {{z, dot, nrm}, {xv, yv, alpha}};
}

// x (channels, width, height, batch) -> conv3x3 -> scale and shift -> ReLU -> conv3x3 -> scale and
// shift -> + x -> ReLU. Weights (out channel, in channel, kx, ky); zero padding.
P resblock() {
    ImageParam in(Float(32), 4, "in"), w1(Float(32), 4, "w1"), w2(Float(32), 4, "w2");
    ImageParam s1(Float(32), 1, "s1"), b1(Float(32), 1, "b1"), s2(Float(32), 1, "s2"), b2(Float(32), 1, "b2");
    Expr C = in.dim(0).extent();
    Func padded = BoundaryConditions::constant_exterior(
        in, 0.0f, {{0, C}, {0, in.dim(1).extent()}, {0, in.dim(2).extent()}, {0, in.dim(3).extent()}});
    RDom r(0, C, -1, 3, -1, 3, "r");
    Func conv1("conv1"), act1("act1"), pad1("pad1"), conv2("conv2"), out("out");
    conv1(k, x, y, n) = sum(w1(k, r.x, r.y + 1, r.z + 1) * padded(r.x, x + r.y, y + r.z, n));
    act1(k, x, y, n) = max(conv1(k, x, y, n) * s1(k) + b1(k), 0.0f);
    pad1 = BoundaryConditions::constant_exterior(
        act1, 0.0f, {{0, C}, {0, in.dim(1).extent()}, {0, in.dim(2).extent()}, {0, in.dim(3).extent()}});
    conv2(k, x, y, n) = sum(w2(k, r.x, r.y + 1, r.z + 1) * pad1(r.x, x + r.y, y + r.z, n));
    out(k, x, y, n) = max(conv2(k, x, y, n) * s2(k) + b2(k) + in(k, x, y, n), 0.0f);
    in.set_estimates({{0, 64}, {0, 56}, {0, 56}, {0, 8}});
    w1.set_estimates({{0, 64}, {0, 64}, {0, 3}, {0, 3}});
    w2.set_estimates({{0, 64}, {0, 64}, {0, 3}, {0, 3}});
    for (ImageParam *p : {&s1, &b1, &s2, &b2}) p->set_estimates({{0, 64}});
    out.set_estimates({{0, 64}, {0, 56}, {0, 56}, {0, 8}});
    return {{out}, {in, w1, w2, s1, b1, s2, b2}};
}

}  // namespace

void add_pipelines_aa(Registry &r) {
    r.emplace("fft1k", fft1k);
    r.emplace("linblur", linblur);
    r.emplace("blas1", blas1);
    r.emplace("resblock", resblock);
}

}  // namespace user_pipelines
