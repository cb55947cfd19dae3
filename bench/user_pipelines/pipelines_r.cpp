// User pipelines, eighteenth set: products written the way ML code in Halide is: a linear layer
// with a tanh GELU (weights stored output-major, both operands along the input features), a batch
// of matrix products, causal attention with a Param scale, a Gram matrix of features over many
// samples, channel mixing along a sequence, and a linear layer with a low-rank (LoRA) update beside
// it.
#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var i("i"), o("o"), n("n"), x("x"), y("y"), b("b"), d("d"), t("t"), j("j"), h("h"), r("r");

// gelu(x W^T + bias): x (512 features, 4096 tokens), W (512 features, 2048 outputs).
P mlp() {
    ImageParam xin(Float(32), 2, "x"), w(Float(32), 2, "w"), bias(Float(32), 1, "bias");
    RDom k(0, xin.dim(0).extent(), "k");
    Func lin("lin"), out("out");
    lin(o, n) = bias(o) + sum(w(k, o) * xin(k, n));
    Expr v = lin(o, n);
    out(o, n) = 0.5f * v * (1.0f + tanh(0.7978845608f * (v + 0.044715f * v * v * v)));
    xin.set_estimates({{0, 512}, {0, 4096}});
    w.set_estimates({{0, 512}, {0, 2048}});
    bias.set_estimates({{0, 2048}});
    out.set_estimates({{0, 2048}, {0, 4096}});
    return {{out}, {xin, w, bias}};
}

// 32 products of 256 x 128 by 128 x 256 (the batch outermost).
P bmm() {
    ImageParam A(Float(32), 3, "A"), B(Float(32), 3, "B");
    RDom k(0, A.dim(0).extent(), "k");
    Func c("c");
    c(x, y, b) = 0.0f;
    c(x, y, b) += A(k, y, b) * B(x, k, b);
    A.set_estimates({{0, 128}, {0, 256}, {0, 32}});
    B.set_estimates({{0, 256}, {0, 128}, {0, 32}});
    c.set_estimates({{0, 256}, {0, 256}, {0, 32}});
    return {{c}, {A, B}};
}

// Causal attention, 8 heads of 512 tokens of 64 channels, the scores scaled by a Param.
P causal() {
    ImageParam q(Float(32), 3, "q"), k(Float(32), 3, "k"), v(Float(32), 3, "v");
    Param<float> scale("scale");
    RDom rd(0, q.dim(0).extent(), "rd"), rj(0, k.dim(1).extent(), "rj");
    Func s("s"), m("m"), e("e"), den("den"), out("out");
    s(j, t, h) = select(j <= t, sum(q(rd, t, h) * k(rd, j, h)) * scale, -1e30f);
    m(t, h) = maximum(s(rj, t, h));
    e(j, t, h) = exp(s(j, t, h) - m(t, h));
    den(t, h) = sum(e(rj, t, h));
    out(d, t, h) = sum(e(rj, t, h) * v(d, rj, h)) / den(t, h);
    for (ImageParam *p : {&q, &k, &v}) p->set_estimates({{0, 64}, {0, 512}, {0, 8}});
    scale.set_estimate(0.125f);
    out.set_estimates({{0, 64}, {0, 512}, {0, 8}});
    return {{out}, {q, k, v, scale}};
}

// The Gram matrix of 256 features over 16384 samples, divided by the samples.
P gram() {
    ImageParam X(Float(32), 2, "X");
    RDom s(0, X.dim(1).extent(), "s");
    Func g("g"), out("out");
    g(i, j) = 0.0f;
    g(i, j) += X(i, s) * X(j, s);
    out(i, j) = g(i, j) / cast<float>(X.dim(1).extent());
    X.set_estimates({{0, 256}, {0, 16384}});
    out.set_estimates({{0, 256}, {0, 256}});
    return {{out}, {X}};
}

// Channel mixing along a sequence: 96 channels into 192 at each of 65536 positions (the position
// innermost), plus a residual of the first 96 outputs.
P chmix() {
    ImageParam in(Float(32), 2, "in"), w(Float(32), 2, "w");
    RDom c(0, in.dim(1).extent(), "c");
    Func mix("mix"), out("out");
    mix(t, o) = 0.0f;
    mix(t, o) += w(c, o) * in(t, c);
    out(t, o) = mix(t, o) + select(o < in.dim(1).extent(), in(t, min(o, in.dim(1).extent() - 1)), 0.0f);
    in.set_estimates({{0, 65536}, {0, 96}});
    w.set_estimates({{0, 96}, {0, 192}});
    out.set_estimates({{0, 65536}, {0, 192}});
    return {{out}, {in, w}};
}

// x W + (x A) B: 1024 features into 1024 outputs for 2048 tokens, with a rank-16 update.
P lora() {
    ImageParam xin(Float(32), 2, "x"), w(Float(32), 2, "w"), a(Float(32), 2, "a"), bb(Float(32), 2, "bb");
    RDom k(0, xin.dim(0).extent(), "k"), q(0, a.dim(0).extent(), "q");
    Func xa("xa"), out("out");
    xa(r, n) = sum(a(r, k) * xin(k, n));
    out(o, n) = sum(w(o, k) * xin(k, n)) + sum(bb(o, q) * xa(q, n));
    xin.set_estimates({{0, 1024}, {0, 2048}});
    w.set_estimates({{0, 1024}, {0, 1024}});
    a.set_estimates({{0, 16}, {0, 1024}});
    bb.set_estimates({{0, 1024}, {0, 16}});
    out.set_estimates({{0, 1024}, {0, 2048}});
    return {{out}, {xin, w, a, bb}};
}

}  // namespace

void add_pipelines_r(Registry &r) {
    r.emplace("mlp", mlp);
    r.emplace("bmm", bmm);
    r.emplace("causal", causal);
    r.emplace("gram", gram);
    r.emplace("chmix", chmix);
    r.emplace("lora", lora);
}

}  // namespace user_pipelines
