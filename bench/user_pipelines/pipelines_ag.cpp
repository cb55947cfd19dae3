// Thirty-third set: six pipelines as users write them, none shaped like an earlier one. Otsu's
// threshold (a histogram, scans over its bins, an arg-max over thresholds, then the image
// binarized); a Kuwahara filter over a Param radius (four quadrant windows' means and variances
// at each pixel, the least variance's mean); local contrast normalization by 16 x 16 tiles'
// means and deviations (a variance written as two passes); histogram matching of one 8-bit image
// to another's histogram (two histograms, their cumulative counts, a mapping found by counting);
// an ordered dither of a 16-bit image to 4 bits through an 8 x 8 Bayer matrix the pipeline
// builds; and an exposure, vignette and ACES tone curve to float16.
#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var x("x"), y("y"), c("c"), b("b");

// Otsu's threshold of an 8-bit 4K image: the threshold t maximizing the between-class variance
// w0 w1 (mu0 - mu1)^2 of the pixels at or below t and those above (the first such t), from the
// histogram's cumulative counts and intensity sums; pixels above t white.
P otsu() {
    ImageParam in(UInt(8), 2, "in");
    RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
    RDom s(1, 255, "s"), t(0, 256, "t");
    Func hist("hist"), cum("cum"), between("between"), best("best"), out("out");
    hist(b) = 0;
    hist(cast<int>(in(r.x, r.y))) += 1;
    // Counts and intensity sums of the bins up to b: a scan over the bins.
    cum(b) = Tuple(cast<int64_t>(hist(b)), cast<int64_t>(hist(b)) * b);
    cum(s) = Tuple(cum(s - 1)[0] + hist(s), cum(s - 1)[1] + cast<int64_t>(hist(s)) * s);
    Expr n = cast<double>(cum(255)[0]), total = cast<double>(cum(255)[1]);
    Expr w0 = cast<double>(cum(b)[0]), s0 = cast<double>(cum(b)[1]);
    Expr w1 = n - w0;
    Expr gap = s0 * n - total * w0;  // n^2 w0 w1 (mu0 - mu1) up to the factor w0 w1 / n
    between(b) = select(w0 > 0 && w1 > 0, gap * gap / (w0 * w1), Expr(0.0));
    best() = argmax(t, between(t))[0];
    out(x, y) = select(cast<int>(in(x, y)) > best(), cast<uint8_t>(255), cast<uint8_t>(0));
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in}};
}

// A Kuwahara filter of an 8-bit 4K image: of the four (radius + 1)^2 windows with a corner at
// the pixel (edges repeated), the one of least variance (the first of equals, in integers:
// n sum(v^2) - sum(v)^2) gives its rounded mean.
P kuwahara() {
    ImageParam in(UInt(8), 2, "in");
    Param<int> radius("radius");
    radius.set_estimate(3);
    Var q("q");
    Func cl = BoundaryConditions::repeat_edge(in);
    RDom w(0, radius + 1, 0, radius + 1, "w");
    Expr sx = select(q % 2 == 0, -1, 1), sy = select(q / 2 == 0, -1, 1);
    Expr v = cast<int>(cl(x + sx * w.x, y + sy * w.y));
    Func sums("sums"), spread("spread"), out("out");
    sums(x, y, q) = Tuple(sum(v), sum(v * v));
    Expr n = (radius + 1) * (radius + 1);
    spread(x, y, q) = n * sums(x, y, q)[1] - sums(x, y, q)[0] * sums(x, y, q)[0];
    RDom rq(0, 4, "rq");
    Expr least = clamp(argmin(rq, spread(x, y, rq))[0], 0, 3);
    out(x, y) = cast<uint8_t>((sums(x, y, least)[0] + n / 2) / n);
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in, radius}};
}

// Local contrast normalization of a f32 4K image by 16 x 16 tiles: each tile's mean, then its
// variance as the mean squared deviation from that mean (edges repeated past the image), and
// every pixel centred and scaled by its tile's.
P tile_stats() {
    ImageParam in(Float(32), 2, "in");
    Var tx("tx"), ty("ty");
    Func cl = BoundaryConditions::repeat_edge(in);
    RDom t(0, 16, 0, 16, "t");
    Func mean("mean"), var("var"), out("out");
    Expr v = cl(tx * 16 + t.x, ty * 16 + t.y);
    mean(tx, ty) = sum(v) / 256.0f;
    Expr d = v - mean(tx, ty);
    var(tx, ty) = sum(d * d) / 256.0f;
    out(x, y) = (in(x, y) - mean(x / 16, y / 16)) / sqrt(var(x / 16, y / 16) + 1e-3f);
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in}};
}

// Histogram matching: an 8-bit 4K image's levels mapped so that its histogram follows a 1080p
// reference's. Each level goes to the first reference level whose cumulative share reaches the
// level's own (in integers: cdf_ref(k) n_src >= cdf_src(b) n_ref), found by counting the
// reference levels below it.
P hist_match() {
    ImageParam src(UInt(8), 2, "src"), ref(UInt(8), 2, "ref");
    RDom rs(0, src.dim(0).extent(), 0, src.dim(1).extent(), "rs");
    RDom rr(0, ref.dim(0).extent(), 0, ref.dim(1).extent(), "rr");
    RDom s(1, 255, "s"), k(0, 256, "k");
    Func hs("hs"), hr("hr"), cs("cs"), cr("cr"), level("level"), out("out");
    hs(b) = 0;
    hs(cast<int>(src(rs.x, rs.y))) += 1;
    hr(b) = 0;
    hr(cast<int>(ref(rr.x, rr.y))) += 1;
    cs(b) = cast<int64_t>(hs(b));
    cs(s) = cs(s - 1) + hs(s);
    cr(b) = cast<int64_t>(hr(b));
    cr(s) = cr(s - 1) + hr(s);
    Expr n_src = cs(255), n_ref = cr(255);
    level(b) = min(sum(select(cr(k) * n_src < cs(b) * n_ref, 1, 0)), 255);
    out(x, y) = cast<uint8_t>(level(cast<int>(src(x, y))));
    src.set_estimates({{0, 3840}, {0, 2160}});
    ref.set_estimates({{0, 1920}, {0, 1080}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {src, ref}};
}

// An ordered dither of a 16-bit 4K image to 4 bits (levels 0 to 15): the 8 x 8 Bayer matrix
// built from the bits of (i xor j) and i, interleaved and reversed, its threshold at (x mod 8,
// y mod 8) added before the division.
P ordered_dither() {
    ImageParam in(UInt(16), 2, "in");
    Var i("i"), j("j");
    Func bayer("bayer"), out("out");
    Expr a = i ^ j, m = 0;
    for (int bit = 0; bit < 3; bit++) m = m | (((a >> bit) & 1) << (5 - 2 * bit)) | (((i >> bit) & 1) << (4 - 2 * bit));
    bayer(i, j) = m;
    Expr threshold = cast<uint32_t>(bayer(x % 8, y % 8)) * 65535 / 64;
    Expr level = (cast<uint32_t>(in(x, y)) * 15 + threshold) / 65535;
    out(x, y) = cast<uint8_t>(min(level, 15));
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in}};
}

// A planar RGB f32 4K image exposed by a Param, darkened towards its corners by a radial
// vignette of Param strength, through the ACES filmic curve, clamped to [0, 1], as float16.
P aces_vignette() {
    ImageParam in(Float(32), 3, "in");
    Param<float> exposure("exposure"), strength("strength");
    exposure.set_estimate(1.5f);
    strength.set_estimate(0.4f);
    Func out("out");
    Expr cx = cast<float>(in.dim(0).extent()) / 2, cy = cast<float>(in.dim(1).extent()) / 2;
    Expr r2 = ((x - cx) * (x - cx) + (y - cy) * (y - cy)) / (cx * cx + cy * cy);
    Expr v = in(x, y, c) * exposure * (1.0f - strength * r2);
    Expr aces = v * (2.51f * v + 0.03f) / (v * (2.43f * v + 0.59f) + 0.14f);
    out(x, y, c) = cast<float16_t>(clamp(aces, 0.0f, 1.0f));
    in.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    out.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    return {{out}, {in, exposure, strength}};
}

}  // namespace

void add_pipelines_ag(Registry &r) {
    r.emplace("otsu", otsu);
    r.emplace("kuwahara", kuwahara);
    r.emplace("tilestats", tile_stats);
    r.emplace("histmatch", hist_match);
    r.emplace("odither", ordered_dither);
    r.emplace("acesvig", aces_vignette);
}

}  // namespace user_pipelines
