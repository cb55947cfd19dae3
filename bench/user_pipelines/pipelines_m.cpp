// User pipelines, thirteenth set: rotary position embeddings on f16 attention heads, an 8-bit
// matrix product accumulated in 32 bits and requantized, error diffusion along each row (a scan
// whose carried error passes through a threshold), normalized cross-correlation with a template
// (the template's 0-d statistics feeding three windowed sums per pixel), an embedding table's
// gradient (rows scattered by token ids), and a transposed convolution whose taps are picked by an
// RDom predicate on the output's coordinates.
#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var x("x"), y("y"), c("c"), d("d"), h("h"), t("t"), m("m"), v("v");

// Rotary embeddings: each pair of channels (2k, 2k + 1) of a (128 channels, 32 heads, 4096 tokens)
// f16 tensor rotated by the angle t * base^(-2k / 128), the base a parameter.
P rope() {
    ImageParam in(Float(16), 3, "in");
    Param<float> base("base");
    Func freq("freq"), out("out");
    Expr dims = in.dim(0).extent();
    freq(d) = pow(base, -2.0f * cast<float>(d / 2) / cast<float>(dims));
    Expr angle = cast<float>(t) * freq(d);
    Expr cs = cos(angle), sn = sin(angle);
    Expr even = cast<float>(in(d / 2 * 2, h, t)), odd = cast<float>(in(d / 2 * 2 + 1, h, t));
    out(d, h, t) = cast<float16_t>(select(d % 2 == 0, even * cs - odd * sn, odd * cs + even * sn));
    in.set_estimates({{0, 128}, {0, 32}, {0, 4096}});
    base.set_estimate(10000.0f);
    out.set_estimates({{0, 128}, {0, 32}, {0, 4096}});
    return {{out}, {in, base}};
}

// An 8-bit matrix product: int8 a (K x M) by int8 b (N x K), accumulated in int32 over K (an
// input's extent), scaled by a parameter and saturated back to int8.
P qgemm() {
    ImageParam a(Int(8), 2, "a"), b(Int(8), 2, "b");
    Param<float> scale("scale");
    RDom k(0, a.dim(0).extent(), "k");
    Func acc("acc"), out("out");
    acc(c, m) = 0;
    acc(c, m) += cast<int32_t>(a(k, m)) * cast<int32_t>(b(c, k));
    out(c, m) = saturating_cast<int8_t>(round(cast<float>(acc(c, m)) * scale));
    a.set_estimates({{0, 1024}, {0, 1024}});
    b.set_estimates({{0, 1024}, {0, 1024}});
    scale.set_estimate(1.0f / 4096.0f);
    out.set_estimates({{0, 1024}, {0, 1024}});
    return {{out}, {a, b, scale}};
}

// One-dimensional error diffusion: along each row of a 1920 x 1080 f32 image, a pixel's value plus
// half the error left by the pixel before it is thresholded at 0.5 to black or white (8 bits).
P errdiff() {
    ImageParam in(Float(32), 2, "in");
    Func level("level"), out("out");
    level(x, y) = in(x, y);
    RDom r(1, in.dim(0).extent() - 1, "r");
    Expr prev = level(r - 1, y);
    level(r, y) = in(r, y) + 0.5f * (prev - select(prev > 0.5f, 1.0f, 0.0f));
    out(x, y) = select(level(x, y) > 0.5f, cast<uint8_t>(255), cast<uint8_t>(0));
    in.set_estimates({{0, 1920}, {0, 1080}});
    out.set_estimates({{0, 1920}, {0, 1080}});
    return {{out}, {in}};
}

// Normalized cross-correlation of a 1024 x 1024 f32 image with a 16 x 16 template: the template's
// mean and deviation (0-d reductions) and, per pixel, the window's sum, sum of squares and product
// with the centred template.
P ncc() {
    ImageParam in(Float(32), 2, "in"), tpl(Float(32), 2, "tpl");
    Func cl = BoundaryConditions::repeat_edge(in);
    Expr tw = tpl.dim(0).extent(), th = tpl.dim(1).extent();
    RDom q(0, tw, 0, th, "q");
    Expr count = cast<float>(tw * th);
    Func tmean("tmean"), tdev("tdev"), s1("s1"), s2("s2"), sxt("sxt"), out("out");
    tmean() = sum(tpl(q.x, q.y)) / count;
    tdev() = sum((tpl(q.x, q.y) - tmean()) * (tpl(q.x, q.y) - tmean()));
    RDom w(0, tw, 0, th, "w");
    s1(x, y) = sum(cl(x + w.x, y + w.y));
    s2(x, y) = sum(cl(x + w.x, y + w.y) * cl(x + w.x, y + w.y));
    sxt(x, y) = sum(cl(x + w.x, y + w.y) * (tpl(w.x, w.y) - tmean()));
    Expr var = max(s2(x, y) - s1(x, y) * s1(x, y) / count, 0.0f);
    out(x, y) = sxt(x, y) / sqrt(var * tdev() + 1e-6f);
    in.set_estimates({{0, 1024}, {0, 1024}});
    tpl.set_estimates({{0, 16}, {0, 16}});
    out.set_estimates({{0, 1024}, {0, 1024}});
    return {{out}, {in, tpl}};
}

// An embedding table's gradient: the (1024-channel) output gradients of 16384 tokens added into the
// rows of an 8192-row table that the tokens' ids pick (ids modulo the vocabulary, a parameter).
P embbwd() {
    ImageParam grad(Float(32), 2, "grad");
    ImageParam ids(Int(32), 1, "ids");
    Param<int> vocab("vocab");
    RDom r(0, ids.dim(0).extent(), "r");
    Func table("table");
    table(d, v) = 0.0f;
    table(d, ids(r) % vocab) += grad(d, r);
    grad.set_estimates({{0, 1024}, {0, 16384}});
    ids.set_estimates({{0, 16384}});
    vocab.set_estimate(8192);
    table.set_estimates({{0, 1024}, {0, 8192}});
    return {{table}, {grad, ids, vocab}};
}

// A transposed convolution (stride 2, 4 x 4 taps): a (960 x 540, 16 channels) f32 tensor to
// (1920 x 1080, 8 channels). Each output pixel sums the taps whose offset has its parity, an RDom
// predicate on the output's coordinates; the channels in come from the input's extent.
P tconv() {
    ImageParam in(Float(32), 3, "in"), w(Float(32), 4, "w");
    Func cl = BoundaryConditions::constant_exterior(in, 0.0f);
    RDom r(0, 4, 0, 4, 0, in.dim(2).extent(), "r");
    r.where((x + 1 - r.x) % 2 == 0);
    r.where((y + 1 - r.y) % 2 == 0);
    Func out("out");
    out(x, y, c) = 0.0f;
    out(x, y, c) += cl((x + 1 - r.x) / 2, (y + 1 - r.y) / 2, r.z) * w(r.x, r.y, r.z, c);
    in.set_estimates({{0, 960}, {0, 540}, {0, 16}});
    w.set_estimates({{0, 4}, {0, 4}, {0, 16}, {0, 8}});
    out.set_estimates({{0, 1920}, {0, 1080}, {0, 8}});
    return {{out}, {in, w}};
}

}  // namespace

void add_pipelines_m(Registry &r) {
    r.emplace("rope", rope);
    r.emplace("qgemm", qgemm);
    r.emplace("errdiff", errdiff);
    r.emplace("ncc", ncc);
    r.emplace("embbwd", embbwd);
    r.emplace("tconv", tconv);
}

}  // namespace user_pipelines
