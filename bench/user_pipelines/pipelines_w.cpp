// Twenty-third set: what generators say beside the algorithm. 64-bit counters and sums (a pixel
// census into uint64 and int64), a boolean output chosen by a boolean and a uint8 parameter, a
// whole-buffer RDom (`RDom r(in)`) normalizing a volume with a `require` on its parameter, a 5-D
// video batch (each frame less its clip's mean), row statistics accumulated in doubles, and an
// image whose coordinates do not start at zero (a crop's window, read by its own mins).
#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var x("x"), y("y"), c("c"), t("t"), b("b");

// Per row, how many pixels pass the level and the int64 sum of their signed differences from it;
// in all, the uint64 count of passing pixels.
P census64() {
    ImageParam in(UInt(16), 2, "in");
    Param<uint16_t> level("level", 32768);
    RDom r(0, in.dim(0).extent(), "r");
    RDom all(0, in.dim(0).extent(), 0, in.dim(1).extent(), "all");
    Func pass("pass"), rowsum("rowsum"), total("total");
    pass(x, y) = in(x, y) >= level;
    rowsum(y) = sum(select(pass(r, y), cast<int64_t>(in(r, y)) - cast<int64_t>(level), cast<int64_t>(0)));
    total() = sum(cast<uint64_t>(pass(all.x, all.y)));
    in.set_estimates({{0, 3840}, {0, 2160}});
    level.set_estimate(32768);
    rowsum.set_estimates({{0, 2160}});
    return {{rowsum, total}, {in, level}};
}

// A boolean mask: at or above the threshold, or below it where `invert` is set; eroded by one
// pixel (a pixel is set where its 3 x 3 neighbourhood is).
P boolmask() {
    ImageParam in(UInt(8), 2, "in");
    Param<uint8_t> threshold("threshold", 128);
    Param<bool> invert("invert", false);
    Func clamped = BoundaryConditions::repeat_edge(in);
    Func raw("raw"), mask("mask");
    raw(x, y) = (clamped(x, y) >= threshold) != invert;
    RDom k(-1, 3, -1, 3, "k");
    mask(x, y) = minimum(select(raw(x + k.x, y + k.y), cast<uint8_t>(1), cast<uint8_t>(0))) == 1;
    in.set_estimates({{0, 3840}, {0, 2160}});
    threshold.set_estimate(128);
    invert.set_estimate(true);
    mask.set_estimates({{0, 3840}, {0, 2160}});
    return {{mask}, {in, threshold, invert}};
}

// A volume scaled to [0, gain] by its minimum and maximum over the whole buffer (`RDom r(in)`);
// the gain must be positive (`require`).
P volnorm() {
    ImageParam in(Float(32), 3, "in");
    Param<float> gain("gain", 1.0f);
    RDom r(in);
    Func lo("lo"), hi("hi"), out("out");
    lo() = minimum(in(r.x, r.y, r.z));
    hi() = maximum(in(r.x, r.y, r.z));
    Expr scale = gain / max(hi() - lo(), 1e-6f);
    out(x, y, c) = require(gain > 0.0f, (in(x, y, c) - lo()) * scale, "gain must be positive, not", gain);
    in.set_estimates({{0, 256}, {0, 256}, {0, 256}});
    gain.set_estimate(2.0f);
    out.set_estimates({{0, 256}, {0, 256}, {0, 256}});
    return {{out}, {in, gain}};
}

// A batch of video clips (x, y, c, t, b): each frame less its clip's mean at that pixel, scaled.
P video5d() {
    ImageParam in(Float(32), 5, "in");
    RDom f(0, in.dim(3).extent(), "f");
    Func mean("mean"), out("out");
    mean(x, y, c, b) = sum(in(x, y, c, f, b)) / cast<float>(in.dim(3).extent());
    out(x, y, c, t, b) = (in(x, y, c, t, b) - mean(x, y, c, b)) * 2.0f;
    in.set_estimates({{0, 320}, {0, 180}, {0, 3}, {0, 16}, {0, 8}});
    out.set_estimates({{0, 320}, {0, 180}, {0, 3}, {0, 16}, {0, 8}});
    return {{out}, {in}};
}

// Each row's mean and standard deviation, accumulated in doubles, and the row standardized.
P rowstd64() {
    ImageParam in(Float(32), 2, "in");
    RDom r(0, in.dim(0).extent(), "r");
    Func s1("s1"), s2("s2"), out("out");
    Expr n = cast<double>(in.dim(0).extent());
    s1(y) = sum(cast<double>(in(r, y)));
    s2(y) = sum(cast<double>(in(r, y)) * cast<double>(in(r, y)));
    Expr mean = s1(y) / n;
    Expr sd = sqrt(max(s2(y) / n - mean * mean, Expr(1e-12)));
    out(x, y) = cast<float>((cast<double>(in(x, y)) - mean) / sd);
    in.set_estimates({{0, 4096}, {0, 4096}});
    out.set_estimates({{0, 4096}, {0, 4096}});
    return {{out}, {in}};
}

// A crop's window: the image's coordinates start at (100, 50), and the output's one pixel inside
// them. A 3 x 3 box, each pixel less the window's top-left pixel (read at the input's mins).
P window() {
    ImageParam in(Float(32), 2, "in");
    Func box("box"), out("out");
    Expr x0 = in.dim(0).min(), y0 = in.dim(1).min();
    RDom k(-1, 3, -1, 3, "k");
    box(x, y) = sum(in(x + k.x, y + k.y)) / 9.0f;
    out(x, y) = box(x, y) - in(x0, y0);
    in.set_estimates({{100, 2048}, {50, 1536}});
    out.set_estimates({{101, 2032}, {51, 1520}});
    return {{out}, {in}};
}

}  // namespace

void add_pipelines_w(Registry &r) {
    r.emplace("census64", census64);
    r.emplace("boolmask", boolmask);
    r.emplace("volnorm", volnorm);
    r.emplace("video5d", video5d);
    r.emplace("rowstd64", rowstd64);
    r.emplace("window", window);
}

}  // namespace user_pipelines
