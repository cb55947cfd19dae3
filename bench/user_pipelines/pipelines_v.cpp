// Twenty-second set: reductions of products into few results over many steps, as training code
// and statistics write them. A 64-channel covariance of a 1024 x 1024 feature map (each channel's
// mean taken out), attention's value gradient (64 features of 2048 keys, each a sum over 2048
// queries of the probabilities times the output gradient), and a linear layer's weight gradient
// (512 x 512 weights, each a sum over 8192 samples) with its bias gradient beside it.
#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var x("x"), y("y"), c("c"), a("a"), b("b"), d("d"), j("j"), i("i"), o("o");

P cov64() {
    ImageParam in(Float(32), 3, "in");
    RDom p(0, in.dim(0).extent(), 0, in.dim(1).extent(), "p");
    Expr n = cast<float>(in.dim(0).extent() * in.dim(1).extent());
    Func mean("mean"), cov("cov");
    mean(c) = sum(in(p.x, p.y, c)) / n;
    cov(a, b) = sum((in(p.x, p.y, a) - mean(a)) * (in(p.x, p.y, b) - mean(b))) / n;
    in.set_estimates({{0, 1024}, {0, 1024}, {0, 64}});
    cov.set_estimates({{0, 64}, {0, 64}});
    return {{cov}, {in}};
}

// dV(d, j) = sum_t P(j, t) dO(d, t): P the softmax probabilities (keys innermost), dO the output
// gradient (features innermost).
P dvattn() {
    ImageParam prob(Float(32), 2, "prob"), dout(Float(32), 2, "dout");
    RDom t(0, prob.dim(1).extent(), "t");
    Func dv("dv");
    dv(d, j) = 0.0f;
    dv(d, j) += prob(j, t) * dout(d, t);
    prob.set_estimates({{0, 2048}, {0, 2048}});
    dout.set_estimates({{0, 64}, {0, 2048}});
    dv.set_estimates({{0, 64}, {0, 2048}});
    return {{dv}, {prob, dout}};
}

// dW(i, o) = sum_n x(i, n) dy(o, n); db(o) = sum_n dy(o, n).
P lingrad() {
    ImageParam xin(Float(32), 2, "x"), dy(Float(32), 2, "dy");
    RDom n(0, xin.dim(1).extent(), "n");
    Func dw("dw"), db("db");
    dw(i, o) = sum(xin(i, n) * dy(o, n));
    db(o) = sum(dy(o, n));
    xin.set_estimates({{0, 512}, {0, 8192}});
    dy.set_estimates({{0, 512}, {0, 8192}});
    dw.set_estimates({{0, 512}, {0, 512}});
    db.set_estimates({{0, 512}});
    return {{dw, db}, {xin, dy}};
}

}  // namespace

void add_pipelines_v(Registry &r) {
    r.emplace("cov64", cov64);
    r.emplace("dvattn", dvattn);
    r.emplace("lingrad", lingrad);
}

}  // namespace user_pipelines
