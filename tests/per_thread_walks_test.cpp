// Two layouts chosen from what a kernel computes and where it stores: a pointwise root whose
// costly math (sines, powers) does not vary along one of its dims walks that dim in each thread
// (rotary position embeddings: the angle of a token and channel, the same for every head); and a
// scatter that writes the Func's innermost dim as it is (an embedding table's gradient, rows picked
// by token ids) takes its rows over the threads and a block per point of its RDom. Each planned at
// its estimates and run on the host and on OpenCL at other sizes against a plain C++ reference. And
// a pointwise root whose threads do work their vectors do not share takes 2 rows per thread; and a
// scan with few walks whose innermost RVar's steps may run at once takes them over the threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <regex>
#include <vector>

#include "tests/support/plan_and_run.h"
#include "tests/support/plan_fields.h"
#include "tests/support/user_pipeline.h"

using namespace Halide;
using namespace solder::testing;
using solder::autosched::GenericParams;
using solder::autosched::Plan;
using solder::autosched::PointwiseParams;

// Rotary embeddings over (channels, heads, tokens): each pair of channels rotated by the angle
// t * base^(-2k / channels). With `per_head`, the angle also moves with the head, and no dim is
// walked for it.
TEST(PerThreadWalks, MathThatDoesNotVaryAlongADimIsComputedOncePerThread) {
    ImageParam in(Float(32), 3, "in");
    Param<float> base("base");
    auto define = [&](bool per_head, int heads = 32) {
        Var d("d"), h("h"), t("t");
        Func freq("freq"), out("out");
        freq(d) = pow(base, -2.0f * cast<float>(d / 2) / cast<float>(in.dim(0).extent()));
        Expr pos = per_head ? cast<float>(t + h) : cast<float>(t);
        Expr angle = pos * freq(d);
        Expr even = in(d / 2 * 2, h, t), odd = in(d / 2 * 2 + 1, h, t);
        out(d, h, t) = select(d % 2 == 0, even * cos(angle) - odd * sin(angle), odd * cos(angle) + even * sin(angle));
        out.set_estimates({{0, 128}, {0, heads}, {0, 4096}});
        return out;
    };
    in.set_estimates({{0, 128}, {0, 32}, {0, 4096}});
    base.set_estimate(10000.0f);
    {
        Plan plan = plan_for({define(false)}, {}, true);
        const auto *k = kernel_rooted_at(plan, "out");
        ASSERT_NE(k, nullptr) << plan.to_text();
        const PointwiseParams &p = params_of<PointwiseParams>(*k, "pointwise");
        EXPECT_EQ(p.serial_dim, 1) << plan.to_text();
        EXPECT_EQ(p.serial_unroll, 8) << plan.to_text();
        EXPECT_NE(plan.to_text().find("each thread walks the 32 points of its dim 1"), std::string::npos)
            << plan.to_text();
    }
    for (Plan plan : {plan_for({define(true)}, {}, true), plan_for({define(false, 256)}, {}, true),
                      plan_for({define(false)}, {}, false)}) {
        // The math moves with every dim; or the heads are too many to walk; or the host.
        const auto *k = kernel_rooted_at(plan, "out");
        ASSERT_NE(k, nullptr) << plan.to_text();
        if (const PointwiseParams *p = k->get<PointwiseParams>()) {
            EXPECT_EQ(p->serial_dim, -1) << plan.to_text();
        }
    }
    for (auto &target : user_targets()) {
        SCOPED_TRACE("target " + target);
        Func out = define(false);
        const std::string text = schedule_with_solder({out}, target);
        if (target != "host") {
            EXPECT_NE(text.find("walked in each thread (unrolled by 8)"), std::string::npos) << text;
        }
        Pipeline p = compiled({out}, target);
        // (Heads no unrolled walk divides, one of each, and channels no block divides.)
        for (std::vector<int> sz : {std::vector<int>{16, 13, 9}, {2, 1, 1}, {130, 3, 5}, {8, 8, 2}}) {
            SCOPED_TRACE(std::to_string(sz[0]) + "x" + std::to_string(sz[1]) + "x" + std::to_string(sz[2]));
            auto a = random_buffer<float>(sz, 7, -1, 1);
            in.set(a);
            base.set(100.0f);
            Buffer<float> o = realize_on<float>(p, sz, target);
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    const int d = q[0], h = q[1], t = q[2], k = d / 2 * 2;
                    const double f = std::pow(100.0, -2.0 * double(d / 2) / double(sz[0])), ang = double(t) * f;
                    const double even = a(k, h, t), odd = a(k + 1, h, t);
                    return d % 2 == 0 ? even * std::cos(ang) - odd * std::sin(ang)
                                      : odd * std::cos(ang) + even * std::sin(ang);
                },
                1e-4))
                << text;
        }
    }
}

// A group normalization's output, written as users write it: each channel's group found by a
// division by the run-time channels per group, its statistics loaded and `1 / sqrt(var + eps)`
// taken per thread. That work does not vary across the tile's dims 0 and 1, and each thread takes
// 2 rows (x4 vectors); a plain scale and shift of the same shape keeps one row per thread. Run on
// the host and OpenCL at sizes no tile divides, with a row count below the rows per thread.
TEST(PerThreadWalks, WorkThatDoesNotVaryAcrossTheTileTakesTwoRowsPerThread) {
    ImageParam x(Float(32), 4, "gx"), mean(Float(32), 2, "gmean"), var(Float(32), 2, "gvar");
    ImageParam gamma(Float(32), 1, "ggamma");
    Param<int> groups("groups");
    Var w("w"), h("h"), c("c"), n("n");
    auto define = [&](bool normalize) {
        Func out("out");
        Expr grp = c / (x.dim(2).extent() / groups);
        out(w, h, c, n) = normalize ? (x(w, h, c, n) - mean(grp, n)) / sqrt(var(grp, n) + 1e-5f) * gamma(c)
                                    : x(w, h, c, n) * gamma(c) + 1.0f;
        out.set_estimates({{0, 64}, {0, 64}, {0, 256}, {0, 32}});
        return out;
    };
    x.set_estimates({{0, 64}, {0, 64}, {0, 256}, {0, 32}});
    mean.set_estimates({{0, 32}, {0, 32}});
    var.set_estimates({{0, 32}, {0, 32}});
    gamma.set_estimates({{0, 256}});
    groups.set_estimate(32);
    for (bool normalize : {true, false}) {
        Plan plan = plan_for({define(normalize)}, {}, true);
        const auto *k = kernel_rooted_at(plan, "out");
        ASSERT_NE(k, nullptr) << plan.to_text();
        const PointwiseParams &p = params_of<PointwiseParams>(*k, "pointwise");
        EXPECT_EQ(p.vector_width, 4) << plan.to_text();
        EXPECT_EQ(p.unroll_rows, normalize ? 2 : 1) << plan.to_text();
    }
    for (auto &target : user_targets()) {
        SCOPED_TRACE("target " + target);
        Func out = define(true);
        const std::string text = schedule_with_solder({out}, target);
        if (target != "host") {
            EXPECT_NE(text.find("2 rows per thread"), std::string::npos) << text;
        }
        Pipeline p = compiled({out}, target);
        for (std::vector<int> sz : {std::vector<int>{13, 9, 6, 2}, {64, 1, 4, 1}, {130, 35, 3, 2}, {1, 1, 1, 1}}) {
            SCOPED_TRACE(std::to_string(sz[0]) + "x" + std::to_string(sz[1]) + "x" + std::to_string(sz[2]) + "x" +
                         std::to_string(sz[3]));
            const int G = sz[2] % 2 == 0 ? 2 : 1;
            auto a = random_buffer<float>(sz, 11, -2, 2), m = random_buffer<float>({G, sz[3]}, 12, -1, 1);
            auto v = random_buffer<float>({G, sz[3]}, 13, 0.5, 2), ga = random_buffer<float>({sz[2]}, 14, -1, 1);
            x.set(a), mean.set(m), var.set(v), gamma.set(ga);
            groups.set(G);
            Buffer<float> o = realize_on<float>(p, sz, target);
            const int cpg = sz[2] / G;
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    const int g = q[2] / cpg;
                    return (double(a(q[0], q[1], q[2], q[3])) - m(g, q[3])) / std::sqrt(double(v(g, q[3])) + 1e-5) *
                           ga(q[2]);
                },
                1e-5))
                << text;
        }
    }
}

// An embedding table's gradient, as counts: the rows of `grad` (one per token) added into the rows
// of the table its ids pick, modulo a vocabulary size. Rows a warp wide or more at the estimates go
// over the threads, a block per token; narrower rows keep the tokens over the threads.
TEST(PerThreadWalks, RowScattersTakeTheRowOverTheThreadsAndABlockPerPoint) {
    ImageParam grad(Int(32), 2, "grad"), ids(Int(32), 1, "ids");
    Param<int> vocab("vocab");
    auto define = [&](int channels) {
        Var d("d"), v("v");
        RDom r(0, ids.dim(0).extent(), "r");
        Func table("table");
        table(d, v) = 0;
        table(d, ids(r) % vocab) += grad(d, r);
        grad.set_estimates({{0, channels}, {0, 16384}});
        table.set_estimates({{0, channels}, {0, 512}});
        return table;
    };
    ids.set_estimates({{0, 16384}});
    vocab.set_estimate(512);
    for (auto [channels, lanes] : {std::pair{1024, 256}, {100, 64}, {16, 0}}) {
        SCOPED_TRACE("channels " + std::to_string(channels));
        Plan plan = plan_for({define(channels)}, {}, true);
        ASSERT_EQ(plan.kernels.size(), 1u) << plan.to_text();
        const GenericParams &g = params_of<GenericParams>(plan.kernels[0], "generic");
        ASSERT_EQ(g.stage_row_lanes.size(), 2u) << plan.to_text();
        EXPECT_EQ(g.stage_row_lanes[1], lanes) << plan.to_text();
    }
    {
        // Per head (64 channels x 16 heads): 8192 tokens are fewer than 16 per point of the pure
        // vars, yet the row goes over the threads; a thread per (channel, head) would walk every
        // token (2240 -> 96 us on the H200 for a user's version).
        Var d("d"), h("h"), v("v");
        RDom r(0, ids.dim(0).extent(), "r");
        ImageParam g3(Int(32), 3, "g3");
        Func t3("t3");
        t3(d, h, v) = 0;
        t3(d, h, ids(r) % vocab) += g3(d, h, r);
        g3.set_estimates({{0, 64}, {0, 16}, {0, 8192}});
        ids.set_estimates({{0, 8192}});
        t3.set_estimates({{0, 64}, {0, 16}, {0, 4096}});
        Plan plan = plan_for({t3}, {}, true);
        ASSERT_EQ(plan.kernels.size(), 1u) << plan.to_text();
        const GenericParams &g = params_of<GenericParams>(plan.kernels[0], "generic");
        ASSERT_EQ(g.stage_row_lanes.size(), 2u) << plan.to_text();
        EXPECT_EQ(g.stage_row_lanes[1], 64) << plan.to_text();
        ids.set_estimates({{0, 16384}});
    }
    for (auto &target : user_targets()) {
        SCOPED_TRACE("target " + target);
        Func table = define(1024);
        const std::string text = schedule_with_solder({table}, target);
        if (target != "host") {
            EXPECT_NE(text.find("its rows over 256 threads"), std::string::npos) << text;
        }
        Pipeline p = compiled({table}, target);
        // (Rows no block divides, a single channel and token, more rows than tokens.)
        for (std::vector<int> sz : {std::vector<int>{300, 41, 7}, {1, 1, 1}, {257, 5, 9}, {33, 200, 3}}) {
            const int channels = sz[0], tokens = sz[1], rows = sz[2];
            SCOPED_TRACE(std::to_string(channels) + " channels, " + std::to_string(tokens) + " tokens, " +
                         std::to_string(rows) + " rows");
            Buffer<int> gb = random_buffer<int>({channels, tokens}, 11, -1000, 1000);
            Buffer<int> ib = random_buffer<int>({tokens}, 13, 0, 1000);
            grad.set(gb);
            ids.set(ib);
            vocab.set(rows);
            Buffer<int> o = realize_on<int>(p, {channels, rows}, target);
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    int64_t s = 0;
                    for (int t = 0; t < tokens; t++)
                        if (ib(t) % rows == q[1]) s += gb(q[0], t);
                    return s;
                },
                0))
                << text;
        }
    }
}

// Bags of embedding rows (an EmbeddingBag sum): bag b sums the rows of a table that indices
// off(b) ... off(b + 1) - 1 name, an RDom predicate that loads at the bag's var. That var is not
// split (Halide would bound the predicate's loads over the split's tail); the channels, where they
// are the innermost var, go over the block's threads, each thread walking the bag. With the bags
// innermost, a block per point.
TEST(PerThreadWalks, BagsBetweenOffsetsTakeTheirChannelsOverTheThreads) {
    ImageParam table(Float(32), 2, "table"), idx(Int(32), 1, "idx"), off(Int(32), 1, "off");
    auto define = [&](bool channels_inner) {
        Var d("d"), b("b");
        Expr n = idx.dim(0).extent();
        Expr lo = clamp(off(b), 0, n), hi = clamp(off(b + 1), 0, n);
        RDom r(0, 16, "r");
        r.where(r < hi - lo);
        Func bag("bag");
        Expr row = table(d, clamp(idx(min(lo + r, n - 1)), 0, table.dim(1).extent() - 1));
        if (channels_inner) {
            bag(d, b) = 0.0f;
            bag(d, b) += row;
            bag.set_estimates({{0, 256}, {0, 4096}});
        } else {
            bag(b, d) = 0.0f;
            bag(b, d) += row;
            bag.set_estimates({{0, 4096}, {0, 256}});
        }
        return bag;
    };
    table.set_estimates({{0, 256}, {0, 65536}});
    idx.set_estimates({{0, 32768}});
    off.set_estimates({{0, 4097}});
    for (bool inner : {true, false}) {
        SCOPED_TRACE(inner ? "channels innermost" : "bags innermost");
        Plan plan = plan_for({define(inner)}, {}, true);
        ASSERT_EQ(plan.kernels.size(), 1u) << plan.to_text();
        const GenericParams &g = params_of<GenericParams>(plan.kernels[0], "generic");
        ASSERT_EQ(g.stage_points_in_walk.size(), 2u) << plan.to_text();
        EXPECT_EQ(g.stage_points_in_walk[1], -1) << plan.to_text();
        for (auto &target : user_targets()) {
            SCOPED_TRACE("target " + target);
            Func bag = define(inner);
            const std::string text = schedule_with_solder({bag}, target);
            if (target != "host") {
                EXPECT_EQ(std::regex_search(text, std::regex(R"(gpu_threads\(bag\w*_g1_pt\))")), inner) << text;
            }
            Pipeline p = compiled({bag}, target);
            // (Channels no block divides, one channel and one bag, and more bags than indices.)
            for (std::vector<int> sz : {std::vector<int>{300, 7, 50}, {1, 1, 3}, {33, 40, 20}}) {
                const int channels = sz[0], bags = sz[1], n = sz[2], rows = 23;
                SCOPED_TRACE(std::to_string(channels) + " channels, " + std::to_string(bags) + " bags, " +
                             std::to_string(n) + " indices");
                Buffer<float> tb = random_buffer<float>({channels, rows}, 17, -1, 1);
                Buffer<int> ib = random_buffer<int>({n}, 19, 0, rows);
                // Sorted offsets from 0, some bags empty and some past 16 indices (cut at 16).
                Buffer<int> ob(bags + 1);
                for (int i = 0; i <= bags; i++) ob(i) = std::min(n, (i * i * 7) % (n + 5));
                std::sort(ob.begin(), ob.end());
                table.set(tb);
                idx.set(ib);
                off.set(ob);
                Buffer<float> o = realize_on<float>(
                    p, inner ? std::vector<int>{channels, bags} : std::vector<int>{bags, channels}, target);
                EXPECT_TRUE(matches(
                    o,
                    [&](auto &q) {
                        const int d = inner ? q[0] : q[1], bg = inner ? q[1] : q[0];
                        const int lo = std::clamp(ob(bg), 0, n), hi = std::clamp(ob(bg + 1), 0, n);
                        double s = 0;
                        for (int r = 0; r < 16 && r < hi - lo; r++) s += tb(d, std::clamp(ib(lo + r), 0, rows - 1));
                        return s;
                    },
                    1e-5))
                    << text;
            }
        }
    }
}

// A softmax over each sample's few classes (dim 0, an input's extent: 10 at the estimates): the
// row's maximum and sum are read by every class of the row. Each thread walks a row (dim 0) and
// computes them once, instead of a warp per 10-point row.
TEST(PerThreadWalks, RowsShorterThanAWarpAreWalkedByOneThreadEach) {
    ImageParam logits(Float(32), 2, "logits");
    auto define = [&] {
        Var c("c"), n("n");
        RDom r(0, logits.dim(0).extent(), "r");
        Func mx("mx"), den("den"), out("out");
        mx(n) = maximum(logits(r, n));
        den(n) = sum(exp(logits(r, n) - mx(n)));
        out(c, n) = exp(logits(c, n) - mx(n)) / den(n);
        out.set_estimates({{0, 10}, {0, 1048576}});
        return out;
    };
    logits.set_estimates({{0, 10}, {0, 1048576}});
    Plan plan = plan_for({define()}, {}, true);
    ASSERT_EQ(plan.kernels.size(), 1u) << plan.to_text();
    EXPECT_EQ(params_of<PointwiseParams>(plan.kernels[0], "pointwise").serial_dim, 0) << plan.to_text();
    for (auto &target : user_targets()) {
        SCOPED_TRACE("target " + target);
        Func out = define();
        const std::string text = schedule_with_solder({out}, target);
        if (target != "host") {
            EXPECT_NE(text.find("dim 0 walked in each thread"), std::string::npos) << text;
        }
        Pipeline p = compiled({out}, target);
        // (Rows longer than the estimate, one class, and sample counts no block divides.)
        for (std::vector<int> sz : {std::vector<int>{10, 1000}, {17, 33}, {1, 5}, {3, 1}}) {
            SCOPED_TRACE(std::to_string(sz[0]) + " classes, " + std::to_string(sz[1]) + " samples");
            auto a = random_buffer<float>(sz, 23, -4, 4);
            logits.set(a);
            Buffer<float> o = realize_on<float>(p, sz, target);
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    double m = -1e30, s = 0;
                    for (int c = 0; c < sz[0]; c++) m = std::max(m, double(a(c, q[1])));
                    for (int c = 0; c < sz[0]; c++) s += std::exp(double(a(c, q[1])) - m);
                    return std::exp(double(a(q[0], q[1])) - m) / s;
                },
                1e-5))
                << text;
        }
    }
}

// Weights computed with sines (a Lanczos kernel of the tap) and read at every step of a reduction
// over taps: inlined, each output point would compute them at every tap. The cost model counts
// those evaluations, and the weights are stored (18 values) instead.
TEST(PerThreadWalks, SinesReadAtEveryStepOfAReductionAreStored) {
    ImageParam in(Float(32), 2, "in");
    auto define = [&] {
        Var x("x"), y("y"), k("k");
        Func cl = BoundaryConditions::repeat_edge(in);
        Func wx("wx"), out("out");
        Expr t = (cast<float>(k) - 7.0f) / 3.0f, a = 3.14159265f * t, b = a / 3.0f;
        wx(k) = select(abs(t) < 1e-4f, 1.0f, select(abs(t) >= 3.0f, 0.0f, sin(a) * sin(b) / (a * b)));
        RDom r(0, 18, "r");
        out(x, y) = sum(cl(3 * x + r - 8, y) * wx(r));
        out.set_estimates({{0, 1280}, {0, 2160}});
        return out;
    };
    in.set_estimates({{0, 3840}, {0, 2160}});
    Plan plan = plan_for({define()}, {}, true);
    bool stored = false;
    for (auto &k : plan.kernels) stored |= k.root.substr(0, k.root.find('$')) == "wx";
    EXPECT_TRUE(stored) << plan.to_text();
    for (auto &target : user_targets()) {
        SCOPED_TRACE("target " + target);
        Func out = define();
        const std::string text = schedule_with_solder({out}, target);
        Pipeline p = compiled({out}, target);
        for (std::vector<int> sz : {std::vector<int>{37, 5}, {1, 1}}) {
            auto a = random_buffer<float>({3 * sz[0] + 4, sz[1]}, 29, -1, 1);
            in.set(a);
            Buffer<float> o = realize_on<float>(p, sz, target);
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    double s = 0;
                    for (int r = 0; r < 18; r++) {
                        const double t = (r - 7.0) / 3.0, pa = 3.14159265 * t, pb = pa / 3.0;
                        const double w = std::abs(t) < 1e-4   ? 1.0
                                         : std::abs(t) >= 3.0 ? 0.0
                                                              : std::sin(pa) * std::sin(pb) / (pa * pb);
                        s += double(a(std::clamp(3 * q[0] + r - 8, 0, a.width() - 1), q[1])) * w;
                    }
                    return s;
                },
                1e-4))
                << text;
        }
    }
}

// Histograms of 64 x 64 tiles (4096 pixels per tile, 256 bins: contrast-limited adaptive
// equalization's first step): on CUDA a block per tile, its pixels over 256 threads adding
// atomically into the tile's bins in shared memory (GenericParams::cell_lanes), not a thread per
// tile walking its 4096 pixels with each increment in global memory (a user's CLAHE of a 4K image
// 1713 -> 155 us on the H200). Lowered for CUDA; run on the host and OpenCL at other sizes.
TEST(PerThreadWalks, TileHistogramsOfThousandsOfPixelsTakeABlockPerTile) {
    ImageParam img(UInt(8), 2, "img");
    auto define = [&] {
        Var b("b"), tx("tx"), ty("ty");
        Func cl = BoundaryConditions::repeat_edge(img);
        RDom p(0, 64, 0, 64, "p");
        Func hist("hist"), out("out");
        hist(b, tx, ty) = 0;
        hist(cast<int>(cl(tx * 64 + p.x, ty * 64 + p.y)), tx, ty) += 1;
        out(b, tx, ty) = hist(b, tx, ty) * 3;
        out.set_estimates({{0, 256}, {0, 60}, {0, 34}});
        return out;
    };
    img.set_estimates({{0, 3840}, {0, 2160}});
    {
        Func out = define();
        const std::string plan = schedule_with_solder({out}, "cuda");
        EXPECT_NE(plan.find("bins in shared memory, its RDom over 256 threads"), std::string::npos) << plan;
        EXPECT_NO_THROW(Pipeline(out).compile_to_lowered_stmt(::testing::TempDir() + "/tile_hist.stmt", {img},
                                                              Halide::StmtOutputFormat::Text,
                                                              solder::make_target("cuda")))
            << plan;
    }
    for (auto &target : user_targets()) {
        SCOPED_TRACE("target " + target);
        Func out = define();
        const std::string text = schedule_with_solder({out}, target);
        Pipeline p = compiled({out}, target);
        // (Tiles past the image's edge, which repeat its last row and column.)
        for (std::vector<int> sz : {std::vector<int>{200, 70}, {1, 1}, {64, 129}}) {
            SCOPED_TRACE(std::to_string(sz[0]) + "x" + std::to_string(sz[1]));
            auto a = random_buffer<uint8_t>(sz, 31, 0, 256);
            img.set(a);
            const int tw = (sz[0] + 63) / 64, th = (sz[1] + 63) / 64;
            Buffer<int> o = realize_on<int>(p, {256, tw, th}, target);
            std::vector<int> want(size_t(256 * tw * th), 0);
            for (int ty = 0; ty < th; ty++)
                for (int tx = 0; tx < tw; tx++)
                    for (int y = 0; y < 64; y++)
                        for (int x = 0; x < 64; x++) {
                            const int v = a(std::min(tx * 64 + x, sz[0] - 1), std::min(ty * 64 + y, sz[1] - 1));
                            want[size_t(v + 256 * (tx + tw * ty))] += 3;
                        }
            EXPECT_TRUE(matches(
                o, [&](auto &q) { return want[size_t(q[0] + 256 * (q[1] + tw * q[2]))]; }, 0))
                << text;
        }
    }
}

// A column's maxima over windows of 2^t rows (t = 0 .. 5), each height from the one before at
// this row and 2^(t - 1) rows down, written as users write it: an RDom over the rows and the
// heights. Its 1920 columns alone would be 1920 walks of 1144 x 5 steps; the rows' steps run over
// the threads instead, a launch per height. Run on the host and OpenCL at other sizes.
TEST(PerThreadWalks, AScanWithFewWalksTakesItsInnermostRVarOverTheThreads) {
    ImageParam in(Float(32), 2, "win");
    auto define = [&] {
        Var x("x"), y("y"), t("t");
        Func e = BoundaryConditions::repeat_edge(in);
        Func windows("windows"), out("out");
        windows(x, y, t) = e(x, y);
        RDom s(-32, in.dim(1).extent() + 64, 1, 5, "s");
        windows(x, s.x, s.y) = max(windows(x, s.x, s.y - 1), windows(x, s.x + clamp(1 << (s.y - 1), 1, 16), s.y - 1));
        out(x, y) = windows(x, y, 2) + windows(x, y, 5);
        out.set_estimates({{0, 1920}, {0, 1080}});
        return out;
    };
    in.set_estimates({{0, 1920}, {0, 1080}});
    Plan plan = plan_for({define()}, {}, true);
    const auto *k = kernel_rooted_at(plan, "windows");
    ASSERT_NE(k, nullptr) << plan.to_text();
    const GenericParams &p = params_of<GenericParams>(*k, "generic");
    ASSERT_EQ(p.stage_rvar_threads.size(), 2u) << plan.to_text();
    EXPECT_TRUE(p.stage_rvar_threads[1]) << plan.to_text();
    EXPECT_EQ(k->launches, 6) << plan.to_text();  // the pure stage, then a launch per height
    for (auto &target : user_targets()) {
        SCOPED_TRACE("target " + target);
        Func out = define();
        const std::string text = schedule_with_solder({out}, target);
        if (target != "host") {
            EXPECT_NE(text.find("innermost RVar over the threads"), std::string::npos) << text;
            EXPECT_NE(text.find("allow_race_conditions"), std::string::npos) << text;
        }
        Pipeline pl = compiled({out}, target);
        for (std::vector<int> sz : {std::vector<int>{37, 29}, {5, 3}, {70, 9}}) {
            SCOPED_TRACE(std::to_string(sz[0]) + "x" + std::to_string(sz[1]));
            auto a = random_buffer<float>(sz, 11, -1, 1);
            in.set(a);
            Buffer<float> o = realize_on<float>(pl, sz, target);
            auto window_max = [&](int i, int j, int rows) {
                float m = -INFINITY;
                for (int r = j; r < j + rows; r++) m = std::max(m, a(i, std::min(r, sz[1] - 1)));
                return m;
            };
            EXPECT_TRUE(matches(
                o, [&](auto &q) { return window_max(q[0], q[1], 4) + window_max(q[0], q[1], 32); }, 0))
                << text;
        }
    }
}
