// User pipelines, fifth set: a disk-shaped window (an RDom with a predicate) of a Param radius,
// histogram equalization (a histogram, its cumulative scan, a lookup), stream compaction (a scan
// and a predicated scatter), Welford's running variance (a Tuple update no RDom can split), a
// small attention (two products and a softmax), non-maximum suppression of a gradient, a
// convolution by weights in a Buffer built in C++, a Laplacian-pyramid blend of two images, a
// distance transform by four scans, a cumulative sum written as a predicated reduction, a
// histogram of floats into a Param number of bins, and block matching over a search window.
#include <cmath>

#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var x("x"), y("y"), c("c"), i("i");

// The mean over a disk of a Param radius around each pixel of a 4K f32 image, edges mirrored.
P disk() {
    ImageParam in(Float(32), 2, "in");
    Param<int> radius("radius");
    radius.set_estimate(3);
    Func cl = BoundaryConditions::mirror_interior(in);
    RDom r(-radius, 2 * radius + 1, -radius, 2 * radius + 1, "r");
    r.where(r.x * r.x + r.y * r.y <= radius * radius);
    Func area("area"), out("out");
    area() = sum(r, 1.0f);
    out(x, y) = sum(cl(x + r.x, y + r.y)) / area();
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in, radius}};
}
// Histogram equalization of an 8-bit 4K image: a histogram, its cumulative sum (a scan), and each
// pixel looked up in it.
P histeq() {
    ImageParam in(UInt(8), 2, "in");
    RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
    RDom b(1, 255, "b");
    Func hist("hist"), cdf("cdf"), out("out");
    hist(i) = 0;
    hist(cast<int>(in(r.x, r.y))) += 1;
    cdf(i) = hist(i);
    cdf(b) = cdf(b - 1) + hist(b);
    Expr pixels = cast<float>(in.dim(0).extent() * in.dim(1).extent());
    out(x, y) = cast<uint8_t>(clamp(cast<float>(cdf(cast<int>(in(x, y)))) * (255.0f / pixels), 0.0f, 255.0f));
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in}};
}
// Stream compaction of 2^20 floats: the positive ones, in order, at the front of the output (the
// rest zero), placed by an inclusive scan of the flags and a scatter whose RDom has a predicate.
P compact() {
    ImageParam in(Float(32), 1, "in");
    Expr n = in.dim(0).extent();
    Func keep("keep"), pos("pos"), out("out");
    keep(i) = select(in(i) > 0.0f, 1, 0);
    pos(i) = keep(i);
    RDom s(1, n - 1, "s");
    pos(s) = pos(s - 1) + keep(s);
    RDom r(0, n, "r");
    r.where(in(r) > 0.0f);
    out(i) = 0.0f;
    out(clamp(pos(r) - 1, 0, n - 1)) = in(r);
    in.set_estimates({{0, 1 << 20}});
    out.set_estimates({{0, 1 << 20}});
    return {{out}, {in}};
}
// The variance of each row of a 4096 x 4096 f32 image by Welford's method: a Tuple of count, mean
// and squared deviations updated along the row (not associative, so no RDom split applies).
P welford() {
    ImageParam in(Float(32), 2, "in");
    RDom r(0, in.dim(0).extent(), "r");
    Func st("st"), out("out");
    st(y) = Tuple(0.0f, 0.0f, 0.0f);
    Expr n = st(y)[0] + 1.0f, v = in(r, y), d = v - st(y)[1], mean = st(y)[1] + d / n;
    st(y) = Tuple(n, mean, st(y)[2] + d * (v - mean));
    out(y) = st(y)[2] / st(y)[0];
    in.set_estimates({{0, 4096}, {0, 4096}});
    out.set_estimates({{0, 4096}});
    return {{out}, {in}};
}
// Attention for 16 heads of 1024 tokens of 64 channels: scores by a product over channels, a
// softmax over keys, and the values weighted by it.
P attention() {
    ImageParam q(Float(32), 3, "q"), k(Float(32), 3, "k"), v(Float(32), 3, "v");
    Var d("d"), t("t"), j("j"), h("h");
    RDom rd(0, q.dim(0).extent(), "rd"), rj(0, k.dim(1).extent(), "rj");
    Func s("s"), m("m"), e("e"), den("den"), out("out");
    s(j, t, h) = sum(q(rd, t, h) * k(rd, j, h)) / std::sqrt(64.0f);
    m(t, h) = maximum(s(rj, t, h));
    e(j, t, h) = exp(s(j, t, h) - m(t, h));
    den(t, h) = sum(e(rj, t, h));
    out(d, t, h) = sum(e(rj, t, h) * v(d, rj, h)) / den(t, h);
    for (ImageParam *p : {&q, &k, &v}) p->set_estimates({{0, 64}, {0, 1024}, {0, 16}});
    out.set_estimates({{0, 64}, {0, 1024}, {0, 16}});
    return {{out}, {q, k, v}};
}
// Non-maximum suppression of a 4K image's gradient magnitude along the gradient's main axis.
P nms() {
    ImageParam in(Float(32), 2, "in");
    Func cl = BoundaryConditions::repeat_edge(in);
    Func gx("gx"), gy("gy"), mag("mag"), out("out");
    gx(x, y) = cl(x + 1, y) - cl(x - 1, y);
    gy(x, y) = cl(x, y + 1) - cl(x, y - 1);
    mag(x, y) = sqrt(gx(x, y) * gx(x, y) + gy(x, y) * gy(x, y));
    Expr horiz = abs(gx(x, y)) >= abs(gy(x, y));
    Expr n1 = select(horiz, mag(x - 1, y), mag(x, y - 1)), n2 = select(horiz, mag(x + 1, y), mag(x, y + 1));
    out(x, y) = select(mag(x, y) >= n1 && mag(x, y) >= n2, mag(x, y), 0.0f);
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in}};
}
// A 5 x 5 Gaussian of an 8-bit 4K image by weights in a Buffer filled in C++ (compiled into the
// pipeline), the result back in 8 bits.
P kernelbuf() {
    ImageParam in(UInt(8), 2, "in");
    Buffer<float> w(5, 5, "w");
    float total = 0;
    for (int b = 0; b < 5; b++)
        for (int a = 0; a < 5; a++) total += w(a, b) = std::exp(-float((a - 2) * (a - 2) + (b - 2) * (b - 2)) / 4.5f);
    for (int b = 0; b < 5; b++)
        for (int a = 0; a < 5; a++) w(a, b) /= total;
    Func cl = BoundaryConditions::repeat_edge(in);
    RDom r(0, 5, 0, 5, "r");
    Func out("out");
    out(x, y) = cast<uint8_t>(clamp(sum(cast<float>(cl(x + r.x - 2, y + r.y - 2)) * w(r.x, r.y)) + 0.5f, 0.0f, 255.0f));
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in}};
}
// Two 2048 x 2048 images blended through a mask by Laplacian pyramids of four levels, built with
// C++ loops over the levels, then collapsed.
Func down(Func f, const std::string &name) {
    Func dx(name + "_dx"), d(name);
    dx(x, y) = (f(2 * x - 1, y) + 2.0f * f(2 * x, y) + f(2 * x + 1, y)) * 0.25f;
    d(x, y) = (dx(x, 2 * y - 1) + 2.0f * dx(x, 2 * y) + dx(x, 2 * y + 1)) * 0.25f;
    return d;
}
Func up(Func f, const std::string &name) {
    Func u(name);
    u(x, y) = (f(x / 2, y / 2) + f((x + 1) / 2, y / 2) + f(x / 2, (y + 1) / 2) + f((x + 1) / 2, (y + 1) / 2)) * 0.25f;
    return u;
}
P lapblend() {
    ImageParam a(Float(32), 2, "a"), b(Float(32), 2, "b"), mask(Float(32), 2, "mask");
    const int levels = 4;
    std::vector<Func> ga(levels), gb(levels), gm(levels), blend(levels), sum_up(levels);
    ga[0] = BoundaryConditions::repeat_edge(a);
    gb[0] = BoundaryConditions::repeat_edge(b);
    gm[0] = BoundaryConditions::repeat_edge(mask);
    for (int l = 1; l < levels; l++) {
        ga[l] = down(ga[l - 1], "ga" + std::to_string(l));
        gb[l] = down(gb[l - 1], "gb" + std::to_string(l));
        gm[l] = down(gm[l - 1], "gm" + std::to_string(l));
    }
    for (int l = 0; l < levels; l++) {
        Func la("la" + std::to_string(l)), lb("lb" + std::to_string(l));
        if (l == levels - 1) {
            la(x, y) = ga[l](x, y);
            lb(x, y) = gb[l](x, y);
        } else {
            Func ua = up(ga[l + 1], "ua" + std::to_string(l)), ub = up(gb[l + 1], "ub" + std::to_string(l));
            la(x, y) = ga[l](x, y) - ua(x, y);
            lb(x, y) = gb[l](x, y) - ub(x, y);
        }
        blend[l] = Func("blend" + std::to_string(l));
        blend[l](x, y) = la(x, y) * gm[l](x, y) + lb(x, y) * (1.0f - gm[l](x, y));
    }
    sum_up[levels - 1] = blend[levels - 1];
    for (int l = levels - 2; l >= 0; l--) {
        Func u = up(sum_up[l + 1], "collapse_up" + std::to_string(l));
        sum_up[l] = Func("collapse" + std::to_string(l));
        sum_up[l](x, y) = blend[l](x, y) + u(x, y);
    }
    Func out("out");
    out(x, y) = sum_up[0](x, y);
    for (ImageParam *p : {&a, &b, &mask}) p->set_estimates({{0, 2048}, {0, 2048}});
    out.set_estimates({{0, 2048}, {0, 2048}});
    return {{out}, {a, b, mask}};
}
// A city-block distance transform of an 8-bit 1920 x 1080 mask: scans forward and backward along
// the rows, then along the columns.
P dtrans() {
    ImageParam mask(UInt(8), 2, "mask");
    Expr w = mask.dim(0).extent(), h = mask.dim(1).extent();
    Func f("f"), d1("d1"), d2("d2"), d3("d3"), out("out");
    f(x, y) = select(mask(x, y) > 200, 0.0f, 1e6f);
    d1(x, y) = f(x, y);
    RDom rx(1, w - 1, "rx");
    d1(rx, y) = min(d1(rx, y), d1(rx - 1, y) + 1.0f);
    d2(x, y) = d1(x, y);
    RDom bx(0, w - 1, "bx");
    d2(w - 2 - bx, y) = min(d2(w - 2 - bx, y), d2(w - 1 - bx, y) + 1.0f);
    d3(x, y) = d2(x, y);
    RDom ry(1, h - 1, "ry");
    d3(x, ry) = min(d3(x, ry), d3(x, ry - 1) + 1.0f);
    out(x, y) = d3(x, y);
    RDom by(0, h - 1, "by");
    out(x, h - 2 - by) = min(out(x, h - 2 - by), out(x, h - 1 - by) + 1.0f);
    mask.set_estimates({{0, 1920}, {0, 1080}});
    out.set_estimates({{0, 1920}, {0, 1080}});
    return {{out}, {mask}};
}
// Each row's cumulative sum of a 1024 x 1024 f32 image written as a predicated reduction (each
// point sums the row up to itself).
P tricum() {
    ImageParam in(Float(32), 2, "in");
    RDom r(0, in.dim(0).extent(), "r");
    r.where(r <= x);
    Func out("out");
    out(x, y) = 0.0f;
    out(x, y) += in(r, y);
    in.set_estimates({{0, 1024}, {0, 1024}});
    out.set_estimates({{0, 1024}, {0, 1024}});
    return {{out}, {in}};
}
// A histogram of a 4K f32 image into a Param number of bins over a Param range, as fractions.
P paramhist() {
    ImageParam in(Float(32), 2, "in");
    Param<int> nbins("nbins");
    Param<float> lo("lo"), hi("hi");
    nbins.set_estimate(64);
    lo.set_estimate(-1.0f);
    hi.set_estimate(1.0f);
    RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
    Expr bin = clamp(cast<int>((in(r.x, r.y) - lo) / (hi - lo) * cast<float>(nbins)), 0, nbins - 1);
    Func hist("hist"), out("out");
    hist(i) = 0;
    hist(bin) += 1;
    out(i) = cast<float>(hist(i)) / cast<float>(in.dim(0).extent() * in.dim(1).extent());
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 64}});
    return {{out}, {in, nbins, lo, hi}};
}
// Block matching of two 8-bit 1920 x 1088 frames: for each 8 x 8 block, the offset in a 9 x 9
// window with the least sum of absolute differences (a Tuple arg-min over a reduction).
P blockmatch() {
    ImageParam cur(UInt(8), 2, "cur"), prev(UInt(8), 2, "prev");
    Func pc = BoundaryConditions::repeat_edge(prev);
    Var bx("bx"), by("by"), dx("dx"), dy("dy");
    RDom p(0, 8, 0, 8, "p"), s(-4, 9, -4, 9, "s");
    Func sad("sad"), best("best"), out("out");
    sad(dx, dy, bx, by) =
        sum(cast<uint16_t>(absd(cur(8 * bx + p.x, 8 * by + p.y), pc(8 * bx + p.x + dx, 8 * by + p.y + dy))));
    best(bx, by) = argmin(sad(s.x, s.y, bx, by));
    out(bx, by, c) = select(c == 0, best(bx, by)[0], c == 1, best(bx, by)[1], cast<int>(best(bx, by)[2]));
    cur.set_estimates({{0, 1920}, {0, 1088}});
    prev.set_estimates({{0, 1920}, {0, 1088}});
    out.set_estimates({{0, 240}, {0, 136}, {0, 3}});
    return {{out}, {cur, prev}};
}

}  // namespace

void add_pipelines_e(Registry &r) {
    r.emplace("disk", disk);
    r.emplace("histeq", histeq);
    r.emplace("compact", compact);
    r.emplace("welford", welford);
    r.emplace("attention", attention);
    r.emplace("nms", nms);
    r.emplace("kernelbuf", kernelbuf);
    r.emplace("lapblend", lapblend);
    r.emplace("dtrans", dtrans);
    r.emplace("tricum", tricum);
    r.emplace("paramhist", paramhist);
    r.emplace("blockmatch", blockmatch);
}

}  // namespace user_pipelines
