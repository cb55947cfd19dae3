// Twenty-sixth set: updates that touch part of a Func. An image with a frame drawn on its edges
// (four updates over the border rows and columns), a region of interest given by parameters
// brightened in place, a histogram of the pixels above a threshold (an RDom with a `where`), and a
// matrix product through a transposed copy of one operand, as users write it to read both
// operands along rows.
#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var x("x"), y("y"), i("i"), j("j");

P frame() {
    ImageParam in(Float(32), 2, "in");
    Param<int> border("border", 8);
    Func out("out");
    Expr w = in.dim(0).extent(), h = in.dim(1).extent();
    out(x, y) = in(x, y) * 0.5f;
    RDom top(0, w, 0, border, "top"), side(0, border, 0, h, "side");
    out(top.x, top.y) = 1.0f;
    out(top.x, h - 1 - top.y) = 1.0f;
    out(side.x, side.y) = 1.0f;
    out(w - 1 - side.x, side.y) = 1.0f;
    in.set_estimates({{0, 3840}, {0, 2160}});
    border.set_estimate(8);
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in, border}};
}

P roigain() {
    ImageParam in(Float(32), 2, "in");
    Param<int> rx("rx", 0), ry("ry", 0), rw("rw", 64), rh("rh", 64);
    Param<float> gain("gain", 1.0f);
    Func out("out");
    out(x, y) = in(x, y);
    RDom r(rx, rw, ry, rh, "r");
    out(r.x, r.y) = min(out(r.x, r.y) * gain, 1.0f);
    in.set_estimates({{0, 3840}, {0, 2160}});
    rx.set_estimate(960);
    ry.set_estimate(540);
    rw.set_estimate(1920);
    rh.set_estimate(1080);
    gain.set_estimate(1.5f);
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in, rx, ry, rw, rh, gain}};
}

P brighthist() {
    ImageParam in(UInt(8), 2, "in");
    Param<uint8_t> threshold("threshold", 128);
    RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
    r.where(in(r.x, r.y) > threshold);
    Func hist("hist");
    hist(i) = 0;
    hist(cast<int>(in(r.x, r.y)) / 4) += 1;
    in.set_estimates({{0, 3840}, {0, 2160}});
    threshold.set_estimate(100);
    hist.set_estimates({{0, 64}});
    return {{hist}, {in, threshold}};
}

// C(j, i) = sum_k A(k, i) B(j, k), through bt(k, j) = B(j, k).
P matmulbt() {
    ImageParam a(Float(32), 2, "a"), b(Float(32), 2, "b");
    Func bt("bt"), c("c");
    bt(i, j) = b(j, i);
    RDom k(0, a.dim(0).extent(), "k");
    c(j, i) = 0.0f;
    c(j, i) += a(k, i) * bt(k, j);
    a.set_estimates({{0, 1024}, {0, 1024}});
    b.set_estimates({{0, 1024}, {0, 1024}});
    c.set_estimates({{0, 1024}, {0, 1024}});
    return {{c}, {a, b}};
}

}  // namespace

void add_pipelines_z(Registry &r) {
    r.emplace("frame", frame);
    r.emplace("roigain", roigain);
    r.emplace("brighthist", brighthist);
    r.emplace("matmulbt", matmulbt);
}

}  // namespace user_pipelines
