// Thirty-sixth set: six pipelines as users write them, each leaning on something the sets before
// used little: a distance transform in four scans (two of them reversed RDoms); erosion and
// dilation by a structuring element that is an input, its extents and centre known only when the
// pipeline runs; a Gaussian blur whose weights are a Func of a Param sigma over a radius it sets;
// each pixel's rank among its 5 x 5 neighbours; an 8 x 8 block DCT with its cosine table a Func; and the median of
// five frames by a sorting network of mins and maxes.
#include <cmath>
#include <utility>

#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var x("x"), y("y"), u("u");

// The city-block distance of each pixel of a 2K binary mask to its nearest set pixel: columns
// scanned down then up, rows left then right, each scan a min against the neighbour already done.
P chamfer() {
    ImageParam mask(UInt(8), 2, "mask");
    Expr w = mask.dim(0).extent(), h = mask.dim(1).extent();
    Func d("d"), out("out");
    d(x, y) = select(mask(x, y) > 200, 0.0f, 1e6f);
    RDom down(1, h - 1, "down"), up(0, h - 1, "up"), right(1, w - 1, "right"), left(0, w - 1, "left");
    d(x, down) = min(d(x, down), d(x, down - 1) + 1.0f);
    Expr yu = h - 2 - up;
    d(x, yu) = min(d(x, yu), d(x, yu + 1) + 1.0f);
    d(right, y) = min(d(right, y), d(right - 1, y) + 1.0f);
    Expr xl = w - 2 - left;
    d(xl, y) = min(d(xl, y), d(xl + 1, y) + 1.0f);
    out(x, y) = d(x, y);
    mask.set_estimates({{0, 2048}, {0, 2048}});
    out.set_estimates({{0, 2048}, {0, 2048}});
    return {{out}, {mask}};
}

// Erosion and dilation of an 8-bit 1080p image by a structuring element given as an image (7 x 7
// at the estimate, its non-zero points the shape, centred), and their difference: the
// morphological gradient.
P morph_mask() {
    ImageParam in(UInt(8), 2, "in"), se(UInt(8), 2, "se");
    Func cl = BoundaryConditions::repeat_edge(in);
    RDom k(0, se.dim(0).extent(), 0, se.dim(1).extent(), "k");
    Expr cx = se.dim(0).extent() / 2, cy = se.dim(1).extent() / 2;
    Expr tap = cl(x + k.x - cx, y + k.y - cy);
    Func ero("ero"), dil("dil"), grad("grad");
    ero(x, y) = minimum(select(se(k.x, k.y) != 0, tap, cast<uint8_t>(255)));
    dil(x, y) = maximum(select(se(k.x, k.y) != 0, tap, cast<uint8_t>(0)));
    grad(x, y) = select(dil(x, y) > ero(x, y), dil(x, y) - ero(x, y), cast<uint8_t>(0));
    in.set_estimates({{0, 1920}, {0, 1080}});
    se.set_estimates({{0, 7}, {0, 7}});
    ero.set_estimates({{0, 1920}, {0, 1080}});
    grad.set_estimates({{0, 1920}, {0, 1080}});
    return {{ero, grad}, {in, se}};
}

// A separable Gaussian blur of a 2K f32 image whose sigma is a Param (2 at the estimate): the
// taps' weights a Func of sigma over a radius of 3 sigma, normalized by their sum (a scalar Func),
// the edges repeated.
P gauss_sigma() {
    ImageParam in(Float(32), 2, "in");
    Param<float> sigma("sigma");
    sigma.set_estimate(2.0f);
    Expr radius = cast<int>(ceil(3.0f * sigma));
    Func cl = BoundaryConditions::repeat_edge(in);
    Func w("w"), wsum("wsum"), bx("bx"), out("out");
    w(x) = exp(-cast<float>(x * x) / (2.0f * sigma * sigma));
    RDom k(-radius, 2 * radius + 1, "k");
    wsum() = sum(w(k));
    bx(x, y) = sum(cl(x + k, y) * w(k)) / wsum();
    out(x, y) = sum(bx(x, y + k) * w(k)) / wsum();
    in.set_estimates({{0, 2048}, {0, 2048}});
    out.set_estimates({{0, 2048}, {0, 2048}});
    return {{out}, {in, sigma}};
}

// Each pixel's rank among its 5 x 5 neighbours (how many are darker), as an 8-bit image: a local
// contrast measure of a 2K f32 image.
P local_rank() {
    ImageParam in(Float(32), 2, "in");
    Func cl = BoundaryConditions::repeat_edge(in);
    RDom w(-2, 5, -2, 5, "w");
    Func rank("rank"), out("out");
    rank(x, y) = sum(select(cl(x + w.x, y + w.y) < cl(x, y), 1, 0));
    out(x, y) = cast<uint8_t>(rank(x, y) * 10);
    in.set_estimates({{0, 2048}, {0, 2048}});
    out.set_estimates({{0, 2048}, {0, 2048}});
    return {{out}, {in}};
}

// The 8 x 8 block DCT-II of a 2K f32 image (the image's edge repeated past its last whole block):
// each coefficient a sum over its block's 64 points times a cosine table, itself a Func.
P block_dct() {
    ImageParam in(Float(32), 2, "in");
    Func cl = BoundaryConditions::repeat_edge(in);
    const float pi = 3.14159265358979f;
    Func cosine("cosine"), out("out");
    cosine(u, x) = select(u == 0, std::sqrt(0.125f), 0.5f) * cos(cast<float>((2 * x + 1) * u) * (pi / 16.0f));
    RDom n(0, 8, 0, 8, "n");
    out(x, y) = sum(cl((x / 8) * 8 + n.x, (y / 8) * 8 + n.y) * cosine(x % 8, n.x) * cosine(y % 8, n.y));
    in.set_estimates({{0, 2048}, {0, 2048}});
    out.set_estimates({{0, 2048}, {0, 2048}});
    return {{out}, {in}};
}

// The median of five 16-bit 4K frames at each pixel (a temporal denoise), by a network of
// compare-and-swap steps (each a min and a max) that sorts the five values.
P temporal_median() {
    ImageParam frames(UInt(16), 3, "frames");
    std::vector<Expr> v;
    for (int f = 0; f < 5; f++) v.push_back(frames(x, y, f));
    auto swap_in_order = [&](int a, int b) {
        Expr lo = min(v[size_t(a)], v[size_t(b)]), hi = max(v[size_t(a)], v[size_t(b)]);
        v[size_t(a)] = lo;
        v[size_t(b)] = hi;
    };
    // (A nine-step network that sorts any five values.)
    const std::pair<int, int> steps[] = {{0, 1}, {3, 4}, {2, 4}, {2, 3}, {0, 3}, {0, 2}, {1, 4}, {1, 3}, {1, 2}};
    for (auto [a, b] : steps) swap_in_order(a, b);
    Func out("out");
    out(x, y) = v[2];
    frames.set_estimates({{0, 3840}, {0, 2160}, {0, 5}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {frames}};
}

}  // namespace

void add_pipelines_aj(Registry &r) {
    r.emplace("chamfer", chamfer);
    r.emplace("morphmask", morph_mask);
    r.emplace("gausssigma", gauss_sigma);
    r.emplace("localrank", local_rank);
    r.emplace("blockdct", block_dct);
    r.emplace("tmedian", temporal_median);
}

}  // namespace user_pipelines
