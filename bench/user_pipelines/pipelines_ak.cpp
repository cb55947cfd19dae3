// Thirty-seventh set: six pipelines as users write them, each with types or shapes the sets before
// used little: anisotropic (Perona-Malik) diffusion, four steps written as a C++ loop of Funcs
// with the edges repeated at each; a lens undistortion with radial coefficients as Params and
// bilinear taps outside the image black; brute-force matching of 256-bit binary descriptors by
// Hamming distance (32-bit unsigned words, popcount, an argmin over the train set's run-time
// count); an image's moments in f64 as a 0-d Tuple, and the centroid and orientation from them;
// a table of f64 features standardized per column; and an image mapped to its nearest colour of
// a palette that is an input.
#include <cmath>

#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var x("x"), y("y"), c("c"), i("i");

// Four steps of Perona-Malik diffusion on a 4K f32 image: each step adds lambda times the four
// neighbour differences, each weighted by exp(-(d / kappa)^2); kappa and lambda are Params.
P perona() {
    ImageParam in(Float(32), 2, "in");
    Param<float> kappa("kappa"), lambda("lambda");
    kappa.set_estimate(0.25f);
    lambda.set_estimate(0.2f);
    Expr w = in.dim(0).extent(), h = in.dim(1).extent();
    Func cur("u0");
    cur(x, y) = in(x, y);
    for (int step = 0; step < 4; step++) {
        Func e = BoundaryConditions::repeat_edge(cur, {{0, w}, {0, h}});
        auto flux = [&](Expr d) { return exp(-(d * d) / (kappa * kappa)) * d; };
        Expr centre = e(x, y);
        Func next("u" + std::to_string(step + 1));
        next(x, y) = centre + lambda * (flux(e(x, y - 1) - centre) + flux(e(x, y + 1) - centre) +
                                        flux(e(x - 1, y) - centre) + flux(e(x + 1, y) - centre));
        cur = next;
    }
    Func out("out");
    out(x, y) = cur(x, y);
    in.set_estimates({{0, 3840}, {0, 2160}});
    out.set_estimates({{0, 3840}, {0, 2160}});
    return {{out}, {in, kappa, lambda}};
}

// Undistorts a 4K planar 8-bit RGB image: each output pixel's normalized radius r from the
// centre maps to the source point scaled by 1 + k1 r^2 + k2 r^4, sampled bilinearly, black
// outside the image.
P undistort() {
    ImageParam in(UInt(8), 3, "in");
    Param<float> k1("k1"), k2("k2");
    k1.set_estimate(-0.18f);
    k2.set_estimate(0.04f);
    Expr w = in.dim(0).extent(), h = in.dim(1).extent();
    Func src = BoundaryConditions::constant_exterior(in, cast<uint8_t>(0));
    Expr cx = cast<float>(w) / 2.0f, cy = cast<float>(h) / 2.0f, f = cast<float>(max(w, h)) / 2.0f;
    Expr nx = (cast<float>(x) + 0.5f - cx) / f, ny = (cast<float>(y) + 0.5f - cy) / f;
    Expr r2 = nx * nx + ny * ny;
    Expr s = 1.0f + k1 * r2 + k2 * r2 * r2;
    Expr sx = nx * s * f + cx - 0.5f, sy = ny * s * f + cy - 0.5f;
    Expr ix = cast<int>(floor(sx)), iy = cast<int>(floor(sy));
    Expr fx = sx - floor(sx), fy = sy - floor(sy);
    auto at = [&](Expr px, Expr py) { return cast<float>(src(px, py, c)); };
    Expr top = at(ix, iy) * (1.0f - fx) + at(ix + 1, iy) * fx;
    Expr bottom = at(ix, iy + 1) * (1.0f - fx) + at(ix + 1, iy + 1) * fx;
    Func out("out");
    out(x, y, c) = cast<uint8_t>(clamp(top * (1.0f - fy) + bottom * fy + 0.5f, 0.0f, 255.0f));
    in.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    out.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    return {{out}, {in, k1, k2}};
}

// Brute-force matching of binary descriptors: each query's 8 words of 32 bits against every
// train descriptor, the Hamming distance the popcount of their xor; each query's nearest train
// descriptor and its distance (ties to the lowest index). 4096 queries and 4096 train descriptors
// at the estimates.
P hamming() {
    ImageParam query(UInt(32), 2, "query"), train(UInt(32), 2, "train");
    RDom wd(0, query.dim(0).extent(), "wd");
    RDom j(0, train.dim(1).extent(), "j");
    Func dist("dist"), best("best"), index("index"), distance("distance");
    Var t("t");
    dist(t, i) = sum(popcount(query(wd, i) ^ train(wd, t)));
    best(i) = argmin(j, dist(j, i));
    index(i) = best(i)[0];
    distance(i) = best(i)[1];
    query.set_estimates({{0, 8}, {0, 4096}});
    train.set_estimates({{0, 8}, {0, 4096}});
    index.set_estimates({{0, 4096}});
    distance.set_estimates({{0, 4096}});
    return {{index, distance}, {query, train}};
}

// The raw moments of a 4K 8-bit image up to second order, summed in f64 as one Tuple, and from
// them the centroid and the orientation of the intensity's principal axis (a 0-d f64 Tuple).
P moments() {
    ImageParam in(UInt(8), 2, "in");
    RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
    Func m("m"), shape("shape");
    const Expr zero = Expr(0.0);  // (an f64 constant)
    m() = Tuple(zero, zero, zero, zero, zero, zero);
    Expr v = cast<double>(in(r.x, r.y)), px = cast<double>(r.x), py = cast<double>(r.y);
    m() = Tuple(m()[0] + v, m()[1] + v * px, m()[2] + v * py, m()[3] + v * px * px, m()[4] + v * py * py,
                m()[5] + v * px * py);
    Expr m00 = max(m()[0], Expr(1.0));
    Expr mx = m()[1] / m00, my = m()[2] / m00;
    Expr mu20 = m()[3] / m00 - mx * mx, mu02 = m()[4] / m00 - my * my, mu11 = m()[5] / m00 - mx * my;
    shape() = Tuple(mx, my, Expr(0.5) * atan2(Expr(2.0) * mu11, mu20 - mu02));
    in.set_estimates({{0, 3840}, {0, 2160}});
    return {{shape}, {in}};
}

// A table of f64 features (256 per sample, 65536 samples at the estimates) standardized per
// feature: the mean and the unbiased standard deviation over the samples, a column reduction.
P colstd64() {
    ImageParam in(Float(64), 2, "in");
    Expr n = in.dim(1).extent();
    RDom r(0, n, "r");
    Func mean("mean"), var("var"), out("out");
    mean(x) = sum(in(x, r)) / cast<double>(n);
    var(x) = sum(pow(in(x, r) - mean(x), 2)) / cast<double>(max(n - 1, 1));
    out(x, y) = (in(x, y) - mean(x)) / sqrt(var(x) + Expr(1e-12));
    in.set_estimates({{0, 256}, {0, 65536}});
    out.set_estimates({{0, 256}, {0, 65536}});
    return {{out}, {in}};
}

// Maps each pixel of a 1080p planar 8-bit RGB image to the nearest colour (squared distance) of a
// palette given as an input (3 x 16 at the estimate), the lowest index on ties; also the index.
P palette() {
    ImageParam img(UInt(8), 3, "img"), pal(UInt(8), 2, "pal");
    RDom k(0, pal.dim(1).extent(), "k");
    auto diff = [&](int ch) { return cast<int>(img(x, y, ch)) - cast<int>(pal(ch, k)); };
    Expr d = diff(0) * diff(0) + diff(1) * diff(1) + diff(2) * diff(2);
    Func nearest("nearest"), index("index"), out("out");
    nearest(x, y) = argmin(k, d)[0];
    index(x, y) = cast<uint8_t>(nearest(x, y));
    out(x, y, c) = pal(c, clamp(nearest(x, y), 0, pal.dim(1).extent() - 1));
    img.set_estimates({{0, 1920}, {0, 1080}, {0, 3}});
    pal.set_estimates({{0, 3}, {0, 16}});
    index.set_estimates({{0, 1920}, {0, 1080}});
    out.set_estimates({{0, 1920}, {0, 1080}, {0, 3}});
    return {{out, index}, {img, pal}};
}

}  // namespace

void add_pipelines_ak(Registry &r) {
    r.emplace("perona", perona);
    r.emplace("undistort", undistort);
    r.emplace("hamming", hamming);
    r.emplace("moments", moments);
    r.emplace("colstd64", colstd64);
    r.emplace("palette", palette);
}

}  // namespace user_pipelines
