// Forty-fourth set: four pipelines as users write them: Horn-Schunck optical flow (image
// gradients, then five iterations of neighbour averages and the flow update, two outputs);
// 2 x 2 max pooling that also returns where each maximum was (an inline argmax's Tuple, two
// outputs); a mobile network's block (a depthwise 3 x 3 convolution, batch norm and ReLU6, then a
// 1 x 1 convolution over the channels); and a softmax within segments given by an id per element
// (each segment's maximum and sum scattered by id, then each element normalized by its segment's).
#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var x("x"), y("y"), c("c"), k("k"), n("n"), i("i"), s("s");

// Horn-Schunck flow between two 1080p frames: u and v after five iterations, each the 4-neighbour
// average of the last (edges repeated) moved along the brightness gradient.
P hornschunck() {
    ImageParam f0(Float(32), 2, "f0"), f1(Float(32), 2, "f1");
    Param<float> alpha("alpha");
    alpha.set_estimate(1.0f);
    Func a = BoundaryConditions::repeat_edge(f0), b = BoundaryConditions::repeat_edge(f1);
    Func ix("ix"), iy("iy"), it("it"), den("den");
    ix(x, y) = 0.25f * (a(x + 1, y) - a(x, y) + a(x + 1, y + 1) - a(x, y + 1) + b(x + 1, y) - b(x, y) +
                        b(x + 1, y + 1) - b(x, y + 1));
    iy(x, y) = 0.25f * (a(x, y + 1) - a(x, y) + a(x + 1, y + 1) - a(x + 1, y) + b(x, y + 1) - b(x, y) +
                        b(x + 1, y + 1) - b(x + 1, y));
    it(x, y) = 0.25f * (b(x, y) - a(x, y) + b(x + 1, y) - a(x + 1, y) + b(x, y + 1) - a(x, y + 1) + b(x + 1, y + 1) -
                        a(x + 1, y + 1));
    den(x, y) = alpha * alpha + ix(x, y) * ix(x, y) + iy(x, y) * iy(x, y);
    Expr w = f0.dim(0).extent(), h = f0.dim(1).extent();
    // The first iteration from zero flow.
    Func u("u0"), v("v0");
    u(x, y) = -ix(x, y) * it(x, y) / den(x, y);
    v(x, y) = -iy(x, y) * it(x, y) / den(x, y);
    for (int iter = 1; iter < 5; iter++) {
        const std::string tag = std::to_string(iter);
        Func uc = BoundaryConditions::repeat_edge(u, {{0, w}, {0, h}});
        Func vc = BoundaryConditions::repeat_edge(v, {{0, w}, {0, h}});
        Func ub("ubar" + tag), vb("vbar" + tag), t("t" + tag), un("u" + tag), vn("v" + tag);
        ub(x, y) = 0.25f * (uc(x - 1, y) + uc(x + 1, y) + uc(x, y - 1) + uc(x, y + 1));
        vb(x, y) = 0.25f * (vc(x - 1, y) + vc(x + 1, y) + vc(x, y - 1) + vc(x, y + 1));
        t(x, y) = (ix(x, y) * ub(x, y) + iy(x, y) * vb(x, y) + it(x, y)) / den(x, y);
        un(x, y) = ub(x, y) - ix(x, y) * t(x, y);
        vn(x, y) = vb(x, y) - iy(x, y) * t(x, y);
        u = un, v = vn;
    }
    f0.set_estimates({{0, 1920}, {0, 1080}});
    f1.set_estimates({{0, 1920}, {0, 1080}});
    u.set_estimates({{0, 1920}, {0, 1080}});
    v.set_estimates({{0, 1920}, {0, 1080}});
    return {{u, v}, {f0, f1, alpha}};
}

// 2 x 2 max pooling of a 112 x 112 x 64 x 16 activation: each window's maximum and its position in
// the window (0 to 3), from one argmax.
P maxpoolidx() {
    ImageParam in(Float(32), 4, "in");
    RDom r(0, 2, 0, 2, "r");
    Func am("am"), pooled("pooled"), where("where");
    am(x, y, c, n) = argmax(in(2 * x + r.x, 2 * y + r.y, c, n));
    pooled(x, y, c, n) = am(x, y, c, n)[2];
    where(x, y, c, n) = cast<uint8_t>(am(x, y, c, n)[0] + 2 * am(x, y, c, n)[1]);
    in.set_estimates({{0, 112}, {0, 112}, {0, 64}, {0, 16}});
    pooled.set_estimates({{0, 56}, {0, 56}, {0, 64}, {0, 16}});
    where.set_estimates({{0, 56}, {0, 56}, {0, 64}, {0, 16}});
    return {{pooled, where}, {in}};
}

// A mobile block on a 112 x 112 x 64 image: depthwise 3 x 3 (zero padding), batch norm folded to a
// scale and shift per channel, ReLU6, then 1 x 1 to 128 channels.
P mbconv() {
    ImageParam in(Float(32), 3, "in"), dw(Float(32), 3, "dw"), scale(Float(32), 1, "scale"),
        shift(Float(32), 1, "shift"), pw(Float(32), 2, "pw");
    Func padded = BoundaryConditions::constant_exterior(in, 0.0f);
    RDom t(0, 3, 0, 3, "t");
    Func depth("depth"), act("act"), out("out");
    depth(x, y, c) = sum(padded(x + t.x - 1, y + t.y - 1, c) * dw(t.x, t.y, c));
    act(x, y, c) = clamp(depth(x, y, c) * scale(c) + shift(c), 0.0f, 6.0f);
    RDom rc(0, in.dim(2).extent(), "rc");
    out(x, y, k) = sum(act(x, y, rc) * pw(rc, k));
    in.set_estimates({{0, 112}, {0, 112}, {0, 64}});
    dw.set_estimates({{0, 3}, {0, 3}, {0, 64}});
    scale.set_estimates({{0, 64}});
    shift.set_estimates({{0, 64}});
    pw.set_estimates({{0, 64}, {0, 128}});
    out.set_estimates({{0, 112}, {0, 112}, {0, 128}});
    return {{out}, {in, dw, scale, shift, pw}};
}

// A softmax within segments over 4M scores: each element's segment is its id wrapped into the
// segment count; each segment's maximum and sum of exponentials are scattered by id.
P segsoftmax() {
    ImageParam score(Float(32), 1, "score"), id(Int(32), 1, "id");
    Param<int> segments("segments");
    segments.set_estimate(4096);
    Expr seg_of_i = id(i) % segments;
    RDom r(0, score.dim(0).extent(), "r");
    Expr seg_of_r = id(r) % segments;
    Func mx("mx"), den("den"), out("out");
    mx(s) = -1e30f;
    mx(seg_of_r) = max(mx(seg_of_r), score(r));
    den(s) = 0.0f;
    den(seg_of_r) += exp(score(r) - mx(seg_of_r));
    out(i) = exp(score(i) - mx(seg_of_i)) / den(seg_of_i);
    score.set_estimates({{0, 1 << 22}});
    id.set_estimates({{0, 1 << 22}});
    out.set_estimates({{0, 1 << 22}});
    return {{out}, {score, id, segments}};
}

}  // namespace

void add_pipelines_ar(Registry &r) {
    r.emplace("hornschunck", hornschunck);
    r.emplace("maxpoolidx", maxpoolidx);
    r.emplace("mbconv", mbconv);
    r.emplace("segsoftmax", segsoftmax);
}

}  // namespace user_pipelines
