// User pipelines, eleventh set: all-pairs forces on 4096 bodies (a reduction whose every result
// reads every body), a running sum along rows reset wherever a mask is set (a scan with a
// data-dependent restart), local binary patterns with a 256-bin histogram per 16 x 16 cell (bit
// operations on a 3 x 3 neighbourhood, then a scatter at each cell), the per-pixel median of 9
// frames by a sorting network (min and max chains), a 5 x 5 filter of a planar RGB image with
// mirrored edges and weights read from an input, and a Func refined by three updates (a sum, a
// square in place, a bias) that a normalization reads.
#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var x("x"), y("y"), c("c"), i("i"), k("k");

// Softened inverse-square forces on 4096 bodies (x, y, z, mass as the 4 columns of an input):
// each body's force sums every other body's pull, one result per body and coordinate.
P nbody() {
    ImageParam body(Float(32), 2, "body");
    Param<float> soft("soft");
    soft.set_estimate(0.01f);
    RDom j(0, body.dim(0).extent(), "j");
    Func d("d"), inv("inv"), force("force");
    d(i, k, c) = body(k, c) - body(i, c);
    Expr r2 = d(i, k, 0) * d(i, k, 0) + d(i, k, 1) * d(i, k, 1) + d(i, k, 2) * d(i, k, 2) + soft;
    inv(i, k) = body(k, 3) / (r2 * sqrt(r2));
    force(i, c) = 0.0f;
    force(i, c) += d(i, j, c) * inv(i, j);
    body.set_estimates({{0, 4096}, {0, 4}});
    force.set_estimates({{0, 4096}, {0, 3}});
    return {{force}, {body, soft}};
}

// A running sum along each row of a 4096 x 2048 f32 image that restarts wherever a u8 mask is set
// (segments of a row summed in place): a scan whose every step reads the mask.
P segscan() {
    ImageParam in(Float(32), 2, "in"), mask(UInt(8), 2, "mask");
    RDom r(1, in.dim(0).extent() - 1, "r");
    Func run("run"), out("out");
    run(x, y) = in(x, y);
    run(r, y) = select(mask(r, y) != 0, in(r, y), run(r - 1, y) + in(r, y));
    out(x, y) = run(x, y) * 0.5f;
    in.set_estimates({{0, 4096}, {0, 2048}});
    mask.set_estimates({{0, 4096}, {0, 2048}});
    out.set_estimates({{0, 4096}, {0, 2048}});
    return {{out}, {in, mask}};
}

// Local binary patterns of a 1920 x 1088 u8 image (each pixel's 8 neighbours compared with it,
// one bit each, edges clamped), then a 256-bin histogram of the codes in each 16 x 16 cell,
// normalized by the cell's pixel count.
P lbp() {
    ImageParam in(UInt(8), 2, "in");
    Func cl = BoundaryConditions::repeat_edge(in);
    Func code("code"), hist("hist"), out("out");
    Expr ctr = cl(x, y);
    Expr bits = select(cl(x - 1, y - 1) >= ctr, 1, 0) | select(cl(x, y - 1) >= ctr, 2, 0) |
                select(cl(x + 1, y - 1) >= ctr, 4, 0) | select(cl(x + 1, y) >= ctr, 8, 0) |
                select(cl(x + 1, y + 1) >= ctr, 16, 0) | select(cl(x, y + 1) >= ctr, 32, 0) |
                select(cl(x - 1, y + 1) >= ctr, 64, 0) | select(cl(x - 1, y) >= ctr, 128, 0);
    code(x, y) = cast<uint8_t>(bits);
    RDom p(0, 16, 0, 16, "p");
    Var b("b"), cx("cx"), cy("cy");
    hist(b, cx, cy) = 0;
    hist(cast<int>(code(cx * 16 + p.x, cy * 16 + p.y)), cx, cy) += 1;
    out(b, cx, cy) = cast<float>(hist(b, cx, cy)) / 256.0f;
    in.set_estimates({{0, 1920}, {0, 1088}});
    out.set_estimates({{0, 256}, {0, 120}, {0, 68}});
    return {{out}, {in}};
}

// The per-pixel median of 9 f32 frames of 1920 x 1080 (frames the outermost dim), by a sorting
// network of min and max on the 9 values.
P median9() {
    ImageParam in(Float(32), 3, "in");
    Func out("out");
    std::vector<Expr> v;
    for (int f = 0; f < 9; f++) v.push_back(in(x, y, f));
    auto sort2 = [&](int a, int b2) {
        Expr lo = min(v[a], v[b2]), hi = max(v[a], v[b2]);
        v[a] = lo;
        v[b2] = hi;
    };
    // The 19-exchange median network for 9 values (Paeth): v[4] ends as the median.
    const int net[19][2] = {{1, 2}, {4, 5}, {7, 8}, {0, 1}, {3, 4}, {6, 7}, {1, 2}, {4, 5}, {7, 8}, {0, 3},
                            {5, 8}, {4, 7}, {3, 6}, {1, 4}, {2, 5}, {4, 7}, {4, 2}, {6, 4}, {4, 2}};
    for (auto &e : net) sort2(e[0], e[1]);
    out(x, y) = v[4];
    in.set_estimates({{0, 1920}, {0, 1080}, {0, 9}});
    out.set_estimates({{0, 1920}, {0, 1080}});
    return {{out}, {in}};
}

// A 5 x 5 filter of a planar f32 RGB 4K image, edges mirrored (mirror_interior), its weights a
// 5 x 5 input the same for every channel.
P mirror5() {
    ImageParam in(Float(32), 3, "in"), w(Float(32), 2, "w");
    Func m = BoundaryConditions::mirror_interior(in, {{0, in.dim(0).extent()}, {0, in.dim(1).extent()}});
    RDom r(0, 5, 0, 5, "r");
    Func out("out");
    out(x, y, c) = sum(m(x + r.x - 2, y + r.y - 2, c) * w(r.x, r.y));
    in.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    w.set_estimates({{0, 5}, {0, 5}});
    out.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    return {{out}, {in, w}};
}

// Per-row statistics of a 2048 x 4096 f32 matrix built by three updates of one Func (the sum of
// squares, then its square root in place, then a bias), read by a normalization of each row.
P refine3() {
    ImageParam in(Float(32), 2, "in");
    Param<float> bias("bias");
    bias.set_estimate(1e-3f);
    RDom r(0, in.dim(0).extent(), "r");
    Func norm("norm"), out("out");
    norm(y) = 0.0f;
    norm(y) += in(r, y) * in(r, y);
    norm(y) = sqrt(norm(y));
    norm(y) = norm(y) + bias;
    out(x, y) = in(x, y) / norm(y);
    in.set_estimates({{0, 2048}, {0, 4096}});
    out.set_estimates({{0, 2048}, {0, 4096}});
    return {{out}, {in, bias}};
}

}  // namespace

void add_pipelines_k(Registry &r) {
    r.emplace("nbody", nbody);
    r.emplace("segscan", segscan);
    r.emplace("lbp", lbp);
    r.emplace("median9", median9);
    r.emplace("mirror5", mirror5);
    r.emplace("refine3", refine3);
}

}  // namespace user_pipelines
