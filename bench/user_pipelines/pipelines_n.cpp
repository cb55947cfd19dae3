// User pipelines, fourteenth set: a dropout mask drawn from an integer hash of the coordinates and a
// seed, a cumulative sum along the middle dim of a 3-D tensor (the innermost dim parallel), bags of
// embedding rows summed between offsets (an RDom predicate that loads at a pure var, beside a pure
// var of rows), a nearest-neighbour upsampling read by a 3 x 3 convolution, "over" compositing of
// a stack of layers (an update that reads itself at each step), and a six-level pyramid with the
// mean of each level as a 0-d output.
#include "bench/user_pipelines/pipeline.h"

using namespace Halide;

namespace user_pipelines {
namespace {

Var x("x"), y("y"), c("c"), d("d"), b("b"), t("t");

// Bias, GELU (tanh form) and dropout at rate 1/8 on a (4096 x 8192) f32 activation: each point
// kept where a 32-bit hash of its coordinates and a seed (a parameter) is at or above 1/8 of its
// range, and scaled by 8/7.
P dropout() {
    ImageParam in(Float(32), 2, "in"), bias(Float(32), 1, "bias");
    Param<uint32_t> seed("seed");
    Func out("out");
    auto u32 = [](uint32_t v) { return Expr(v); };
    Expr h = cast<uint32_t>(x) * u32(0x9E3779B1u) + cast<uint32_t>(y) * u32(0x85EBCA77u) + seed;
    h = (h ^ (h >> 15)) * u32(0x2C1B3C6Du);
    h = (h ^ (h >> 12)) * u32(0x297A2D39u);
    h = h ^ (h >> 15);
    Expr v = in(x, y) + bias(x);
    Expr gelu = 0.5f * v * (1.0f + tanh(0.7978845608f * (v + 0.044715f * v * v * v)));
    out(x, y) = select(h >= u32(0x20000000u), gelu * (8.0f / 7.0f), 0.0f);
    in.set_estimates({{0, 4096}, {0, 8192}});
    bias.set_estimates({{0, 4096}});
    seed.set_estimate(12345);
    out.set_estimates({{0, 4096}, {0, 8192}});
    return {{out}, {in, bias, seed}};
}

// A cumulative sum along dim 1 of a (1024, 2048, 8) f32 tensor (torch's cumsum over the middle
// dim): each (d, b) walks t; d is innermost in memory.
P cumsum_mid() {
    ImageParam in(Float(32), 3, "in");
    Func acc("acc");
    acc(d, t, b) = in(d, t, b);
    RDom r(1, in.dim(1).extent() - 1, "r");
    acc(d, r, b) = acc(d, r - 1, b) + in(d, r, b);
    in.set_estimates({{0, 1024}, {0, 2048}, {0, 8}});
    acc.set_estimates({{0, 1024}, {0, 2048}, {0, 8}});
    return {{acc}, {in}};
}

// Bags of embedding rows (an EmbeddingBag sum): bag b sums the 256-channel rows of a 65536-row
// table that indices off(b) ... off(b + 1) - 1 name; 4096 bags of up to 64 indices (offsets an
// input, clamped to the indices' extent).
P embbag() {
    ImageParam table(Float(32), 2, "table");
    ImageParam idx(Int(32), 1, "idx"), off(Int(32), 1, "off");
    Expr n = idx.dim(0).extent();
    Expr lo = clamp(off(b), 0, n), hi = clamp(off(b + 1), 0, n);
    RDom r(0, 64, "r");
    r.where(r < hi - lo);
    Func bag("bag");
    bag(d, b) = 0.0f;
    bag(d, b) += table(d, clamp(idx(min(lo + r, n - 1)), 0, table.dim(1).extent() - 1));
    table.set_estimates({{0, 256}, {0, 65536}});
    idx.set_estimates({{0, 131072}});
    off.set_estimates({{0, 4097}});
    bag.set_estimates({{0, 256}, {0, 4096}});
    return {{bag}, {table, idx, off}};
}

// A decoder block: a (960 x 540, 16 channels) f32 tensor upsampled 2x by nearest neighbour, then a
// 3 x 3 convolution of its 16 channels into 16 (weights an input), zero outside the image.
P upconv() {
    ImageParam in(Float(32), 3, "in"), w(Float(32), 4, "w");
    Func up("up"), out("out");
    Func cl = BoundaryConditions::constant_exterior(in, 0.0f);
    up(x, y, c) = cl(x / 2, y / 2, c);
    RDom r(0, 3, 0, 3, 0, in.dim(2).extent(), "r");
    Var k("k");
    out(x, y, k) = 0.0f;
    out(x, y, k) += up(x + r.x - 1, y + r.y - 1, r.z) * w(r.x, r.y, r.z, k);
    in.set_estimates({{0, 960}, {0, 540}, {0, 16}});
    w.set_estimates({{0, 3}, {0, 3}, {0, 16}, {0, 16}});
    out.set_estimates({{0, 1920}, {0, 1080}, {0, 16}});
    return {{out}, {in, w}};
}

// "Over" compositing of 8 premultiplied RGBA layers (1920 x 1080, channels outermost: planar), back
// to front: an update over the layers that reads the pixel's result so far at each step.
P composite() {
    ImageParam layers(Float(32), 4, "layers");  // x, y, channel (r, g, b, a), layer
    Func acc("acc"), out("out");
    acc(x, y, c) = 0.0f;
    RDom l(0, layers.dim(3).extent(), "l");
    Expr alpha = layers(x, y, 3, l);
    acc(x, y, c) = layers(x, y, c, l) + acc(x, y, c) * (1.0f - alpha);
    out(x, y, c) = clamp(acc(x, y, c), 0.0f, 1.0f);
    layers.set_estimates({{0, 1920}, {0, 1080}, {0, 4}, {0, 8}});
    out.set_estimates({{0, 1920}, {0, 1080}, {0, 4}});
    return {{out}, {layers}};
}

// A six-level pyramid of a 4K f32 image (2 x 2 means), the coarsest level an output, and each
// level's mean a 0-d output of its own.
P levelstats() {
    ImageParam in(Float(32), 2, "in");
    std::vector<Func> outs;
    Func level = BoundaryConditions::repeat_edge(in);
    Expr w = in.dim(0).extent(), h = in.dim(1).extent();
    for (int l = 0; l < 6; l++) {
        Expr lw = max(w >> l, 1), lh = max(h >> l, 1);
        RDom all(0, lw, 0, lh, "all" + std::to_string(l));
        Func mean("mean" + std::to_string(l));
        mean() = sum(level(all.x, all.y)) / cast<float>(lw * lh);
        outs.push_back(mean);
        if (l == 5) break;
        Func next("level" + std::to_string(l + 1));
        next(x, y) =
            (level(2 * x, 2 * y) + level(2 * x + 1, 2 * y) + level(2 * x, 2 * y + 1) + level(2 * x + 1, 2 * y + 1)) *
            0.25f;
        level = next;
    }
    Func coarse("coarse");
    coarse(x, y) = level(x, y);
    in.set_estimates({{0, 3840}, {0, 2160}});
    coarse.set_estimates({{0, 120}, {0, 67}});
    outs.insert(outs.begin(), coarse);
    return {outs, {in}};
}

}  // namespace

void add_pipelines_n(Registry &r) {
    r.emplace("dropout", dropout);
    r.emplace("cumsum_mid", cumsum_mid);
    r.emplace("embbag", embbag);
    r.emplace("upconv", upconv);
    r.emplace("composite", composite);
    r.emplace("levelstats", levelstats);
}

}  // namespace user_pipelines
