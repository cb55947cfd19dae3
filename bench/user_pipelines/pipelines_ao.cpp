// Forty-first set: five pipelines from language-model inference as users write them: a residual
// add fused with an RMS norm over f16 activations (two outputs: the normed values and the updated
// residual stream); a selective state-space scan along time, every channel of every sequence its
// own recurrence; a matrix-vector product with 4-bit weights packed two to a byte and a scale per
// group of 128; the mean over each sequence's first `len(b)` tokens (lengths from a buffer); and a
// causal depthwise convolution along time with channels innermost, under a SiLU.
#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var c("c"), t("t"), b("b"), n("n");

// h = x + residual (f16, summed in f32), then h / rms(h) * w per token, over 4096 channels of
// 8192 tokens: outputs the normed values and h, both f16.
P addrmsnorm() {
    ImageParam x(Float(16), 2, "x"), res(Float(16), 2, "res"), w(Float(16), 1, "w");
    Func h("h"), ms("ms"), out("out"), hsum("hsum");
    h(c, t) = cast<float>(x(c, t)) + cast<float>(res(c, t));
    RDom k(0, x.dim(0).extent(), "k");
    ms(t) = sum(h(k, t) * h(k, t)) / cast<float>(x.dim(0).extent());
    out(c, t) = cast<float16_t>(h(c, t) / sqrt(ms(t) + 1e-6f) * cast<float>(w(c)));
    hsum(c, t) = cast<float16_t>(h(c, t));
    x.set_estimates({{0, 4096}, {0, 8192}});
    res.set_estimates({{0, 4096}, {0, 8192}});
    w.set_estimates({{0, 4096}});
    out.set_estimates({{0, 4096}, {0, 8192}});
    hsum.set_estimates({{0, 4096}, {0, 8192}});
    return {{out, hsum}, {x, res, w}};
}

// A selective scan: for each channel c of each sequence b, the state h(t) = a(t) * h(t - 1) +
// dt(t) * x(t) with a(t) = exp(dt(t) * A(c)) (A negative), and y(t) = h(t) * C(t) + D(c) * x(t).
// 1024 channels (innermost) x 2048 steps x 4 sequences.
P ssmscan() {
    ImageParam x(Float(32), 3, "x"), dt(Float(32), 3, "dt"), cc(Float(32), 3, "cc");
    ImageParam A(Float(32), 1, "A"), D(Float(32), 1, "D");
    Func delta("delta"), h("h"), y("y");
    delta(c, t, b) = log(1.0f + exp(dt(c, t, b)));  // softplus
    RDom r(1, x.dim(1).extent() - 1, "r");
    h(c, t, b) = delta(c, t, b) * x(c, t, b);
    h(c, r, b) = exp(delta(c, r, b) * (-abs(A(c)) - 0.1f)) * h(c, r - 1, b) + h(c, r, b);
    y(c, t, b) = h(c, t, b) * cc(c, t, b) + D(c) * x(c, t, b);
    for (ImageParam *p : {&x, &dt, &cc}) p->set_estimates({{0, 1024}, {0, 2048}, {0, 4}});
    A.set_estimates({{0, 1024}});
    D.set_estimates({{0, 1024}});
    y.set_estimates({{0, 1024}, {0, 2048}, {0, 4}});
    return {{y}, {x, dt, cc, A, D}};
}

// out(n) = sum over k of W(k, n) * v(k), W's 4-bit values packed two to a byte along k (low nibble
// first, offset by 8) with one f32 scale per group of 128 values of k: K = 4096, N = 11008.
P w4gemv() {
    ImageParam wq(UInt(8), 2, "wq"), scale(Float(32), 2, "scale"), v(Float(32), 1, "v");
    Func deq("deq"), out("out");
    Var k("k");
    Expr byte = wq(k / 2, n);
    Expr nib = select(k % 2 == 0, byte & 15, byte >> 4);
    deq(k, n) = (cast<float>(nib) - 8.0f) * scale(k / 128, n);
    RDom r(0, v.dim(0).extent(), "r");
    out(n) = sum(deq(r, n) * v(r));
    wq.set_estimates({{0, 2048}, {0, 11008}});
    scale.set_estimates({{0, 32}, {0, 11008}});
    v.set_estimates({{0, 4096}});
    out.set_estimates({{0, 11008}});
    return {{out}, {wq, scale, v}};
}

// The mean of each sequence's first len(b) token vectors (at least one; at most the tokens there
// are): 768 channels x 512 tokens x 64 sequences.
P maskedmean() {
    ImageParam x(Float(32), 3, "x");
    ImageParam len(Int(32), 1, "len");
    Expr T = x.dim(1).extent();
    Expr L = clamp(len(b) * 8, 1, T);
    RDom r(0, T, "r");
    r.where(r < L);
    Func total("total"), out("out");
    total(c, b) = 0.0f;
    total(c, b) += x(c, r, b);
    out(c, b) = total(c, b) / cast<float>(L);
    x.set_estimates({{0, 768}, {0, 512}, {0, 64}});
    len.set_estimates({{0, 64}});
    out.set_estimates({{0, 768}, {0, 64}});
    return {{out}, {x, len}};
}

// A causal depthwise convolution along time (4 taps per channel, zero before the first step) plus
// a bias, under a SiLU: 2048 channels (innermost) x 2048 steps x 4 sequences.
P causalconv() {
    ImageParam x(Float(32), 3, "x"), w(Float(32), 2, "w"), bias(Float(32), 1, "bias");
    Func xz =
        BoundaryConditions::constant_exterior(x, 0.0f, {{Expr(), Expr()}, {0, x.dim(1).extent()}, {Expr(), Expr()}});
    RDom k(0, w.dim(0).extent(), "k");
    Func conv("conv"), out("out");
    conv(c, t, b) = bias(c) + sum(w(k, c) * xz(c, t - k, b));
    out(c, t, b) = conv(c, t, b) / (1.0f + exp(-conv(c, t, b)));
    x.set_estimates({{0, 2048}, {0, 2048}, {0, 4}});
    w.set_estimates({{0, 4}, {0, 2048}});
    bias.set_estimates({{0, 2048}});
    out.set_estimates({{0, 2048}, {0, 2048}, {0, 4}});
    return {{out}, {x, w, bias}};
}

}  // namespace

void add_pipelines_ao(Registry &r) {
    r.emplace("addrmsnorm", addrmsnorm);
    r.emplace("ssmscan", ssmscan);
    r.emplace("w4gemv", w4gemv);
    r.emplace("maskedmean", maskedmean);
    r.emplace("causalconv", causalconv);
}

}  // namespace user_pipelines
