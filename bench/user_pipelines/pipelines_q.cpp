// User pipelines, seventeenth set: an embedding gradient per attention head (rows scattered by
// token ids beside a pure head dim), sinusoidal position encodings added to a batch of f32
// activations (sines of the position and channel, the same for every sample of the batch), a
// log-softmax over 5 classes laid out outermost (each sample's classes far apart in memory), and
// weighted mean bags of embedding rows between offsets.
#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var d("d"), h("h"), v("v"), t("t"), n("n"), c("c"), b("b");

// grad (64 channels, 16 heads, 8192 tokens) added into table (64, 16, 4096 rows) at the rows the
// tokens' ids pick (modulo the rows, a parameter).
P headscatter() {
    ImageParam grad(Float(32), 3, "grad");
    ImageParam ids(Int(32), 1, "ids");
    Param<int> rows("rows");
    RDom r(0, ids.dim(0).extent(), "r");
    Func table("table");
    table(d, h, v) = 0.0f;
    table(d, h, ids(r) % rows) += grad(d, h, r);
    grad.set_estimates({{0, 64}, {0, 16}, {0, 8192}});
    ids.set_estimates({{0, 8192}});
    rows.set_estimate(4096);
    table.set_estimates({{0, 64}, {0, 16}, {0, 4096}});
    return {{table}, {grad, ids, rows}};
}

// x (512 channels, 2048 positions, 8 samples) plus sin / cos of position * 10000^(-2k / 512).
P posenc() {
    ImageParam x(Float(32), 3, "x");
    Func out("out");
    Expr dims = cast<float>(x.dim(0).extent());
    Expr freq = exp(cast<float>(d / 2 * 2) * (-9.2103404f / dims));
    Expr angle = cast<float>(t) * freq;
    out(d, t, b) = x(d, t, b) + select(d % 2 == 0, sin(angle), cos(angle));
    x.set_estimates({{0, 512}, {0, 2048}, {0, 8}});
    out.set_estimates({{0, 512}, {0, 2048}, {0, 8}});
    return {{out}, {x}};
}

// Log-softmax over the 5 classes (dim 1, an input's extent) of 2^20 samples (dim 0).
P logsm5() {
    ImageParam logits(Float(32), 2, "logits");
    RDom r(0, logits.dim(1).extent(), "r");
    Func mx("mx"), lse("lse"), out("out");
    mx(n) = maximum(logits(n, r));
    lse(n) = mx(n) + log(sum(exp(logits(n, r) - mx(n))));
    out(n, c) = logits(n, c) - lse(n);
    logits.set_estimates({{0, 1048576}, {0, 5}});
    out.set_estimates({{0, 1048576}, {0, 5}});
    return {{out}, {logits}};
}

// Weighted mean bags: bag b averages the 128-channel rows idx(off(b)) ... idx(off(b + 1) - 1) of a
// table, each row weighted by its sample's weight, over at most 32 indices.
P wbag() {
    ImageParam table(Float(32), 2, "table"), wt(Float(32), 1, "wt");
    ImageParam idx(Int(32), 1, "idx"), off(Int(32), 1, "off");
    Expr n_idx = idx.dim(0).extent();
    Expr lo = clamp(off(b), 0, n_idx), hi = clamp(off(b + 1), 0, n_idx);
    RDom r(0, 32, "r");
    r.where(r < hi - lo);
    Expr at = min(lo + r, n_idx - 1);
    Func acc("acc"), out("out");
    acc(d, b) = 0.0f;
    acc(d, b) += table(d, clamp(idx(at), 0, table.dim(1).extent() - 1)) * wt(at);
    out(d, b) = acc(d, b) / cast<float>(max(min(hi - lo, 32), 1));
    table.set_estimates({{0, 128}, {0, 100000}});
    wt.set_estimates({{0, 65536}});
    idx.set_estimates({{0, 65536}});
    off.set_estimates({{0, 8193}});
    out.set_estimates({{0, 128}, {0, 8192}});
    return {{out}, {table, wt, idx, off}};
}

}  // namespace

void add_pipelines_q(Registry &r) {
    r.emplace("headscatter", headscatter);
    r.emplace("posenc", posenc);
    r.emplace("logsm5", logsm5);
    r.emplace("wbag", wbag);
}

}  // namespace user_pipelines
