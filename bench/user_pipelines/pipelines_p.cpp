// User pipelines, sixteenth set: a 3 x 3 convolution whose dilation is a parameter (its footprint
// known only at run time), contrast-limited adaptive histogram equalization (a clipped histogram
// per 64 x 64 tile, a cumulative table per tile, each pixel interpolated between its four nearest
// tiles' tables), escape-time iteration whose RDom predicate reads the Func being updated, and a
// window sum whose RDom's two extents are parameters and whose predicate cuts it to a disc.
#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var x("x"), y("y"), c("c"), i("i"), tx("tx"), ty("ty"), b("b");

// A 3 x 3 convolution of a 4K f32 image with its taps `dil` pixels apart (dil a parameter, 2 at
// the estimate), weights an input, edges clamped.
P paramdil() {
    ImageParam in(Float(32), 2, "in"), w(Float(32), 2, "w");
    Param<int> dil("dil");
    Func cl = BoundaryConditions::repeat_edge(in);
    RDom r(0, 3, 0, 3, "r");
    Func out("out");
    out(x, y) = sum(cl(x + (r.x - 1) * dil, y + (r.y - 1) * dil) * w(r.x, r.y));
    in.set_estimates({{0, 3840}, {0, 2160}});
    w.set_estimates({{0, 3}, {0, 3}});
    dil.set_estimate(2);
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in, w, dil}};
}

// CLAHE on an 8-bit 4K image: per 64 x 64 tile a 256-bin histogram, clipped at a parameter (the
// excess spread evenly over the bins), its cumulative table scaled to 8 bits; each pixel mapped by
// the four nearest tiles' tables, weighted bilinearly by its position between their centres.
P clahe() {
    ImageParam in(UInt(8), 2, "in");
    Param<int> clip("clip");
    const int T = 64;
    Expr ntx = (in.dim(0).extent() + T - 1) / T, nty = (in.dim(1).extent() + T - 1) / T;
    Func cl = BoundaryConditions::repeat_edge(in);
    Func hist("hist"), excess("excess"), clipped("clipped"), cdf("cdf"), lut("lut"), out("out");
    RDom p(0, T, 0, T, "p");
    hist(b, tx, ty) = 0;
    hist(cast<int>(cl(tx * T + p.x, ty * T + p.y)), tx, ty) += 1;
    RDom k(0, 256, "k");
    excess(tx, ty) = sum(max(hist(k, tx, ty) - clip, 0));
    clipped(b, tx, ty) = min(hist(b, tx, ty), clip) + excess(tx, ty) / 256;
    cdf(b, tx, ty) = clipped(b, tx, ty);
    RDom s(1, 255, "s");
    cdf(s, tx, ty) = cdf(s - 1, tx, ty) + clipped(s, tx, ty);
    lut(b, tx, ty) = cast<uint8_t>(clamp(cdf(b, tx, ty) * 255 / (T * T), 0, 255));
    // The pixel's position in tile units from the first tile's centre, and its four tiles.
    Expr fx = (cast<float>(x) + 0.5f) / T - 0.5f, fy = (cast<float>(y) + 0.5f) / T - 0.5f;
    Expr x0 = clamp(cast<int>(floor(fx)), 0, ntx - 1), y0 = clamp(cast<int>(floor(fy)), 0, nty - 1);
    Expr x1 = min(x0 + 1, ntx - 1), y1 = min(y0 + 1, nty - 1);
    Expr ax = clamp(fx - cast<float>(x0), 0.0f, 1.0f), ay = clamp(fy - cast<float>(y0), 0.0f, 1.0f);
    Expr v = cast<int>(in(x, y));
    Expr top = lerp(cast<float>(lut(v, x0, y0)), cast<float>(lut(v, x1, y0)), ax);
    Expr bot = lerp(cast<float>(lut(v, x0, y1)), cast<float>(lut(v, x1, y1)), ax);
    out(x, y) = cast<uint8_t>(clamp(lerp(top, bot, ay) + 0.5f, 0.0f, 255.0f));
    in.set_estimates({{0, 3840}, {0, 2160}});
    clip.set_estimate(40);
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in, clip}};
}

// Escape time of z -> z^2 + c over a 2048 x 2048 grid of c read from two input planes, in 20.12
// fixed point (floats' fused multiply-adds would move escape counts between devices): 96 steps,
// each taken only while |z| <= 2 (an RDom predicate that reads the Func being updated); the output
// is the number of steps taken.
P escape() {
    ImageParam re(Float(32), 2, "re"), im(Float(32), 2, "im");
    Func z("z"), out("out");
    z(x, y) = Tuple(0, 0, 0);
    RDom r(0, 96, "r");
    Expr zr = z(x, y)[0], zi = z(x, y)[1];
    r.where(zr * zr + zi * zi <= (4 << 24));
    Expr cr = cast<int>(re(x, y) * 8192.0f), ci = cast<int>(im(x, y) * 8192.0f);
    // (The step's count names r: an RDom the update does not name is not its domain.)
    z(x, y) = Tuple(((zr * zr - zi * zi) >> 12) + cr, ((zr * zi) >> 11) + ci, max(z(x, y)[2], r + 1));
    out(x, y) = z(x, y)[2];
    re.set_estimates({{0, 2048}, {0, 2048}});
    im.set_estimates({{0, 2048}, {0, 2048}});
    out.set_estimates({{0, 2048}, {0, 2048}});
    return {{out}, {re, im}};
}

// A sum over a (2 rx + 1) x (2 ry + 1) window cut to the ellipse inside it (rx, ry parameters, 4
// and 3 at the estimates), normalized by the points the ellipse keeps, of a 4K f32 image.
P maskwin() {
    ImageParam in(Float(32), 2, "in");
    Param<int> rx("rx"), ry("ry");
    Func cl = BoundaryConditions::mirror_image(in);
    RDom r(-rx, 2 * rx + 1, -ry, 2 * ry + 1, "r");
    Expr inside = r.x * r.x * (ry * ry + 1) + r.y * r.y * (rx * rx + 1) <= (rx * rx + 1) * (ry * ry + 1);
    r.where(inside);
    Func total("total"), count("count"), out("out");  // (count: the points the ellipse keeps)
    total(x, y) = 0.0f;
    total(x, y) += cl(x + r.x, y + r.y);
    RDom q(-rx, 2 * rx + 1, -ry, 2 * ry + 1, "q");
    count() = sum(select(q.x * q.x * (ry * ry + 1) + q.y * q.y * (rx * rx + 1) <= (rx * rx + 1) * (ry * ry + 1), 1, 0));
    out(x, y) = total(x, y) / cast<float>(count());
    in.set_estimates({{0, 3840}, {0, 2160}});
    rx.set_estimate(4);
    ry.set_estimate(3);
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in, rx, ry}};
}

}  // namespace

void add_pipelines_p(Registry &r) {
    r.emplace("paramdil", paramdil);
    r.emplace("clahe", clahe);
    r.emplace("escape", escape);
    r.emplace("maskwin", maskwin);
}

}  // namespace user_pipelines
