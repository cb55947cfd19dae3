// User pipelines, ninth set: a census-transform stereo matcher (32-bit masks, popcount, a cost
// volume aggregated over a window, an arg-min over a Param count of disparities), oriented-gradient
// histograms per 8 x 8 cell (a scatter whose bin is data-dependent beside two pure cell dims), an
// escape-time fractal (a Tuple updated over a Param count of iterations), grey-world white balance
// (three means over a whole 4K image), an RGB covariance matrix (two chained whole-image reductions
// in doubles into a 3 x 3 output), a box filter as a running sum along each row (a scan with a
// Param radius), the mean and peak over the frames of a short video (reductions over the outermost
// dim), an 8-bit edge detector with non-maximum suppression (select-heavy integer stencils), and a
// 1 x 1 convolution over 32 channels (a channel contraction).
#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var x("x"), y("y"), c("c"), d("d");

// Census stereo on two 8-bit 1920 x 1080 frames: each pixel's 5 x 5 census mask (24 comparisons
// with the centre), the Hamming distance between left and right masks at each of `ndisp`
// disparities summed over a 5 x 5 window, and the disparity of least cost.
P census() {
    ImageParam left(UInt(8), 2, "left"), right(UInt(8), 2, "right");
    Param<int> ndisp("ndisp");
    ndisp.set_estimate(32);
    Func lc = BoundaryConditions::repeat_edge(left), rc = BoundaryConditions::repeat_edge(right);
    auto census_of = [&](Func im, const std::string &name) {
        Func f(name);
        Expr bits = cast<uint32_t>(0);
        int k = 0;
        for (int dy = -2; dy <= 2; dy++) {
            for (int dx = -2; dx <= 2; dx++) {
                if (dx == 0 && dy == 0) continue;
                bits = bits | select(im(x + dx, y + dy) < im(x, y), cast<uint32_t>(1) << k, cast<uint32_t>(0));
                k++;
            }
        }
        f(x, y) = bits;
        return f;
    };
    Func cl = census_of(lc, "cl"), cr = census_of(rc, "cr");
    Func cost("cost"), agg("agg"), out("out");
    cost(x, y, d) = cast<uint16_t>(popcount(cl(x, y) ^ cr(x - d, y)));
    RDom w(-2, 5, -2, 5, "w");
    agg(x, y, d) = sum(cost(x + w.x, y + w.y, d));
    RDom rd(0, ndisp, "rd");
    out(x, y) = cast<uint8_t>(argmin(agg(x, y, rd))[0]);
    left.set_estimates({{0, 1920}, {0, 1080}});
    right.set_estimates({{0, 1920}, {0, 1080}});
    out.set_estimates({{0, 1920}, {0, 1080}});
    return {{out}, {left, right, ndisp}};
}

// Histograms of oriented gradients of a 1920 x 1080 f32 image: the gradient's magnitude added to
// one of 9 orientation bins for each 8 x 8 cell, then each cell's histogram normalized by the
// energy of its 2 x 2 block of cells.
P hog() {
    ImageParam in(Float(32), 2, "in");
    Func cl = BoundaryConditions::repeat_edge(in);
    Var b("b"), cx("cx"), cy("cy");
    Func gx("gx"), gy("gy"), mag("mag"), bin("bin"), hist("hist"), energy("energy"), out("out");
    gx(x, y) = cl(x + 1, y) - cl(x - 1, y);
    gy(x, y) = cl(x, y + 1) - cl(x, y - 1);
    mag(x, y) = sqrt(gx(x, y) * gx(x, y) + gy(x, y) * gy(x, y));
    // Unsigned orientation in [0, pi), in 9 bins.
    Expr angle = atan2(gy(x, y), gx(x, y));
    Expr folded = select(angle < 0.0f, angle + 3.14159265f, angle);
    bin(x, y) = clamp(cast<int>(folded * (9.0f / 3.14159265f)), 0, 8);
    RDom p(0, 8, 0, 8, "p");
    Expr px = cx * 8 + p.x, py = cy * 8 + p.y;
    hist(b, cx, cy) = 0.0f;
    hist(bin(px, py), cx, cy) += mag(px, py);
    RDom q(0, 9, 0, 2, 0, 2, "q");
    energy(cx, cy) = sum(hist(q.x, cx + q.y, cy + q.z) * hist(q.x, cx + q.y, cy + q.z));
    out(b, cx, cy) = hist(b, cx, cy) / sqrt(energy(cx, cy) + 1e-6f);
    in.set_estimates({{0, 1920}, {0, 1080}});
    out.set_estimates({{0, 9}, {0, 239}, {0, 134}});
    return {{out}, {in}};
}

// An escape-time fractal over a 1920 x 1080 window of the plane, in 20.12 fixed point: z <- z^2 + c
// for `iters` steps, counting the steps z stays within radius 2 (a Tuple of three values updated
// over an RDom). Fixed point, so that every target counts the same steps: in floats, a fused
// multiply-add on one target and not on another moves points near the set's edge by many steps.
P fractal() {
    Param<int> iters("iters");
    Param<int> step("step");  // the plane's step per pixel, in units of 2^-12
    iters.set_estimate(64);
    step.set_estimate(8);
    Func z("z"), out("out");
    Expr cre = x * step - 9011, cim = y * step - 4301;  // from (-2.2, -1.05)
    z(x, y) = Tuple(0, 0, 0);
    // (The RVar must appear in the update for it to run once per step: an RDom the definition does
    // not name leaves a single update.)
    RDom t(0, iters, "t");
    Expr re = z(x, y)[0], im = z(x, y)[1];
    Expr re2 = (re * re) >> 12, im2 = (im * im) >> 12;
    Expr inside = re2 + im2 < (4 << 12) && t >= 0;
    z(x, y) = Tuple(select(inside, re2 - im2 + cre, re), select(inside, ((re * im) >> 11) + cim, im),
                    z(x, y)[2] + select(inside, 1, 0));
    out(x, y) = cast<float>(z(x, y)[2]) / cast<float>(iters);
    out.set_estimates({{0, 1920}, {0, 1080}});
    return {{out}, {iters, step}};
}

// Grey-world white balance of a planar f32 RGB 4K image stored in [-1, 1]: each channel scaled so
// that its mean over the whole image becomes the mean of the three.
P grayworld() {
    ImageParam in(Float(32), 3, "in");
    RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
    Func level("level"), mean("mean"), out("out");
    level(x, y, c) = in(x, y, c) * 0.5f + 0.5f;
    mean(c) = sum(level(r.x, r.y, c)) / cast<float>(in.dim(0).extent() * in.dim(1).extent());
    Expr grey = (mean(0) + mean(1) + mean(2)) / 3.0f;
    out(x, y, c) = level(x, y, c) * (grey / max(mean(c), 1e-6f));
    in.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    out.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    return {{out}, {in}};
}

// The 3 x 3 covariance matrix of the colours of an interleaved f32 RGB 4K image, summed in doubles:
// the channel means, then the mean product of the deviations.
P covar() {
    ImageParam in(Float(32), 3, "in");
    Var a("a"), b("b");
    Expr n = cast<double>(in.dim(1).extent() * in.dim(2).extent());
    RDom r(0, in.dim(1).extent(), 0, in.dim(2).extent(), "r");
    Func mean("mean"), cov("cov");
    auto px = [&](Expr ch) { return cast<double>(in(ch, r.x, r.y)); };
    mean(c) = sum(px(c)) / n;
    cov(a, b) = cast<float>(sum((px(a) - mean(a)) * (px(b) - mean(b))) / n);
    in.set_estimates({{0, 3}, {0, 3840}, {0, 2160}});
    cov.set_estimates({{0, 3}, {0, 3}});
    return {{cov}, {in}};
}

// A (2 * radius + 1)-wide box filter along the rows of a 4K f32 image as a running sum: each row's
// sum updated from its left neighbour (a scan along x), the image read with its edges repeated.
P runbox() {
    ImageParam in(Float(32), 2, "in");
    Param<int> radius("radius");
    radius.set_estimate(7);
    Func cl = BoundaryConditions::repeat_edge(in);
    Func run("run"), out("out");
    RDom k(-radius, 2 * radius + 1, "k");
    RDom rx(1, in.dim(0).extent() - 1, "rx");
    run(x, y) = undef<float>();
    run(0, y) = sum(cl(k, y));
    run(rx, y) = run(rx - 1, y) + cl(rx + radius, y) - cl(rx - radius - 1, y);
    out(x, y) = run(x, y) / cast<float>(2 * radius + 1);
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in, radius}};
}

// The mean and the peak of each pixel over the 16 frames of a 1920 x 1080 f32 video (frames
// outermost), two outputs.
P frames() {
    ImageParam in(Float(32), 3, "in");
    RDom t(0, in.dim(2).extent(), "t");
    Func mean("mean"), peak("peak");
    mean(x, y) = sum(in(x, y, t)) / cast<float>(in.dim(2).extent());
    peak(x, y) = maximum(in(x, y, t));
    in.set_estimates({{0, 1920}, {0, 1080}, {0, 16}});
    mean.set_estimates({{0, 1920}, {0, 1080}});
    peak.set_estimates({{0, 1920}, {0, 1080}});
    return {{mean, peak}, {in}};
}

// Edges of a 4K 8-bit image in integer arithmetic: a 5-tap binomial blur along each axis, Sobel
// gradients, the magnitude kept only where it is a maximum along the gradient's direction (one of
// four), and a threshold to 8 bits.
P edges() {
    ImageParam in(UInt(8), 2, "in");
    Param<int> level("level");
    level.set_estimate(40);
    Func cl = BoundaryConditions::mirror_image(in);
    Func bx("bx"), by("by"), gx("gx"), gy("gy"), mag("mag"), out("out");
    auto v = [&](Expr e) { return cast<int16_t>(e); };
    bx(x, y) = v(cl(x - 2, y)) + 4 * v(cl(x - 1, y)) + 6 * v(cl(x, y)) + 4 * v(cl(x + 1, y)) + v(cl(x + 2, y));
    auto w = [&](Expr e) { return cast<int>(e); };
    by(x, y) = cast<int16_t>(
        (w(bx(x, y - 2)) + 4 * w(bx(x, y - 1)) + 6 * w(bx(x, y)) + 4 * w(bx(x, y + 1)) + w(bx(x, y + 2)) + 128) / 256);
    gx(x, y) =
        by(x + 1, y - 1) + 2 * by(x + 1, y) + by(x + 1, y + 1) - by(x - 1, y - 1) - 2 * by(x - 1, y) - by(x - 1, y + 1);
    gy(x, y) =
        by(x - 1, y + 1) + 2 * by(x, y + 1) + by(x + 1, y + 1) - by(x - 1, y - 1) - 2 * by(x, y - 1) - by(x + 1, y - 1);
    mag(x, y) = cast<int>(abs(gx(x, y))) + cast<int>(abs(gy(x, y)));
    Expr ax = abs(gx(x, y)), ay = abs(gy(x, y));
    Expr horizontal = ay * 2 < ax, vertical = ax * 2 < ay;
    Expr same_sign = (gx(x, y) > 0) == (gy(x, y) > 0);
    Expr n1 =
        select(horizontal, mag(x - 1, y), vertical, mag(x, y - 1), same_sign, mag(x - 1, y - 1), mag(x + 1, y - 1));
    Expr n2 =
        select(horizontal, mag(x + 1, y), vertical, mag(x, y + 1), same_sign, mag(x + 1, y + 1), mag(x - 1, y + 1));
    Expr m = mag(x, y);
    out(x, y) = select(m >= n1 && m >= n2 && m > level, cast<uint8_t>(255), cast<uint8_t>(0));
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in, level}};
}

// A 1 x 1 convolution of a 512 x 512 image of 32 f32 channels (planar) to 64 channels, with a bias
// and a ReLU: a product over the channels at each pixel.
P conv1x1() {
    ImageParam in(Float(32), 3, "in"), w(Float(32), 2, "w"), bias(Float(32), 1, "bias");
    Var k("k");
    RDom rc(0, in.dim(2).extent(), "rc");
    Func acc("acc"), out("out");
    acc(x, y, k) = bias(k);
    acc(x, y, k) += w(rc, k) * in(x, y, rc);
    out(x, y, k) = max(acc(x, y, k), 0.0f);
    in.set_estimates({{0, 512}, {0, 512}, {0, 32}});
    w.set_estimates({{0, 32}, {0, 64}});
    bias.set_estimates({{0, 64}});
    out.set_estimates({{0, 512}, {0, 512}, {0, 64}});
    return {{out}, {in, w, bias}};
}

}  // namespace

void add_pipelines_i(Registry &r) {
    r.emplace("census", census);
    r.emplace("hog", hog);
    r.emplace("fractal", fractal);
    r.emplace("grayworld", grayworld);
    r.emplace("covar", covar);
    r.emplace("runbox", runbox);
    r.emplace("frames", frames);
    r.emplace("edges", edges);
    r.emplace("conv1x1", conv1x1);
}

}  // namespace user_pipelines
