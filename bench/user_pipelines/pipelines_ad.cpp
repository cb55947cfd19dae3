// Thirtieth set: signal and voting code as Halide users write it. The autocorrelation of a long
// signal at 64 lags (a reduction per lag over a million points), a Hough transform's votes for
// lines through a 1024 x 1024 edge map (a scatter over an RDom of pixels and 180 angles, its bin
// computed with sines), and a polynomial of run-time degree evaluated at every pixel of a 4K image
// by Horner's rule over a coefficient buffer (a reduction at each point that is not associative).
#include <cmath>

#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var x("x"), y("y"), t("t"), k("k");

P acorr() {
    ImageParam sig(Float(32), 1, "sig");
    Expr n = sig.dim(0).extent();
    Func centred("centred"), mean("mean"), ac("ac");
    RDom all(0, n, "all");
    mean() = sum(sig(all)) / cast<float>(n);
    centred(x) = sig(x) - mean();
    RDom r(0, n, "r");
    // Lag k pairs point r with point r + k; past the end, nothing (zero).
    ac(k) = sum(centred(r) * select(r + k < n, centred(min(r + k, n - 1)), 0.0f)) / cast<float>(n);
    sig.set_estimates({{0, 1 << 20}});
    ac.set_estimates({{0, 64}});
    return {{ac}, {sig}};
}

P hough() {
    ImageParam edges(UInt(8), 2, "edges");
    Expr w = edges.dim(0).extent(), h = edges.dim(1).extent();
    const int angles = 180;
    Expr diag = cast<int>(ceil(sqrt(cast<float>(w * w + h * h))));
    Func votes("votes");
    Var a("a"), rho("rho");
    RDom r(0, w, 0, h, 0, angles, "r");
    r.where(edges(r.x, r.y) > 0);
    Expr theta = cast<float>(r.z) * float(M_PI / angles);
    Expr dist = cast<float>(r.x) * cos(theta) + cast<float>(r.y) * sin(theta);
    Expr bin = clamp(cast<int>(round(dist)) + diag, 0, 2 * diag);
    votes(a, rho) = 0;
    votes(r.z, bin) += 1;
    edges.set_estimates({{0, 1024}, {0, 1024}});
    votes.set_estimates({{0, angles}, {0, 2 * 1449 + 1}});
    return {{votes}, {edges}};
}

P poly() {
    ImageParam in(Float(32), 2, "in");
    ImageParam coeff(Float(32), 1, "coeff");
    Func out("out");
    RDom r(0, coeff.dim(0).extent(), "r");
    out(x, y) = 0.0f;
    out(x, y) = out(x, y) * in(x, y) + coeff(coeff.dim(0).extent() - 1 - r);
    in.set_estimates({{0, 3840}, {0, 2160}});
    coeff.set_estimates({{0, 8}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in, coeff}};
}

}  // namespace

void add_pipelines_ad(Registry &r) {
    r.emplace("acorr", acorr);
    r.emplace("hough", hough);
    r.emplace("poly", poly);
}

}  // namespace user_pipelines
