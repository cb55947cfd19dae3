// Small reductions several outputs read point for point, copied for each output
// (autosched/cloned_reductions.h): each output's kernel computes its copy at its points, where the
// planner had stored the one reduction two kernels read. The pipeline is planned with the copies
// and without; the plan the cost model expects faster is kept, and either runs right at any size.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/support/user_pipeline.h"

namespace cloned_reductions_test {

namespace {

// 2 x 2 max pooling with each maximum's position in its window (0 to 3), from one argmax.
struct MaxPool {
    Halide::ImageParam in{Halide::Float(32), 3, "mp_in"};
    Halide::Func pooled{"mp_pooled"}, where{"mp_where"}, am{"mp_am"};
    MaxPool() {
        using namespace Halide;
        Var x("x"), y("y"), c("c");
        RDom r(0, 2, 0, 2, "r");
        am(x, y, c) = argmax(in(2 * x + r.x, 2 * y + r.y, c));
        pooled(x, y, c) = am(x, y, c)[2];
        where(x, y, c) = cast<uint8_t>(am(x, y, c)[0] + 2 * am(x, y, c)[1]);
        in.set_estimates({{0, 224}, {0, 224}, {0, 64}});
        pooled.set_estimates({{0, 112}, {0, 112}, {0, 64}});
        where.set_estimates({{0, 112}, {0, 112}, {0, 64}});
    }
};

// The kernel roots of a plan's text ("k0_name [" ...).
std::vector<std::string> kernel_roots(const std::string &plan) {
    std::vector<std::string> roots;
    for (size_t at = plan.find("  k"); at != std::string::npos; at = plan.find("\n  k", at + 1)) {
        const size_t start = plan.find('_', at) + 1, end = plan.find(' ', start);
        if (start == 0 || end == std::string::npos) break;
        roots.push_back(plan.substr(start, end - start));
    }
    return roots;
}

// `b` filled with pseudo-random bits (the high bits of a linear congruential sequence from
// `seed`), marked as changed on the host (else a GPU run may take the device copy as current).
template<typename T> void fill_bits(Halide::Buffer<T> &b, uint32_t seed) {
    b.for_each_value([&](T &v) { v = T((seed = seed * 1664525u + 1013904223u) >> (32 - 8 * sizeof(T))); });
    b.set_host_dirty();
}

bool stores(const std::string &plan, const std::string &func) {
    for (auto &r : kernel_roots(plan))
        if (r == func || r.rfind(func + "$", 0) == 0) return true;
    return false;
}

void expect_max_pool_matches(MaxPool &m, Halide::Pipeline &p, const std::string &target, int W, int H, int C,
                             const std::string &plan) {
    SCOPED_TRACE(std::to_string(W) + " x " + std::to_string(H) + " x " + std::to_string(C));
    auto in = solder::testing::random_buffer<float>({2 * W, 2 * H, C}, 7, -1, 1);
    m.in.set(in);
    Halide::Buffer<float> pooled(W, H, C);
    Halide::Buffer<uint8_t> where(W, H, C);
    p.realize({pooled, where}, solder::make_target(target));
    pooled.copy_to_host();
    where.copy_to_host();
    int wrong = 0;
    for (int c = 0; c < C; c++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                // Halide's argmax: the first maximum in the RDom's order (r.x innermost).
                float best = in(2 * x, 2 * y, c);
                int at = 0;
                for (int k = 1; k < 4; k++) {
                    const float v = in(2 * x + k % 2, 2 * y + k / 2, c);
                    if (v > best) best = v, at = k;
                }
                wrong += pooled(x, y, c) != best || where(x, y, c) != at;
            }
    EXPECT_EQ(wrong, 0) << plan;
}

}  // namespace

// The argmax is computed in the pooled values' kernel and, copied, in the positions': no kernel
// stores it, the two kernels launch as one, and both outputs match plain loops on OpenCL at sizes
// apart from the estimates.
TEST(ClonedReductions, MaxPoolingWithIndicesComputesItsArgmaxInEachOutputsKernel) {
    MaxPool m;
    const std::string plan = solder::testing::schedule_with_solder({m.pooled, m.where}, "opencl");
    EXPECT_FALSE(stores(plan, "argmax")) << plan;
    EXPECT_NE(plan.find("mp_where read copies of their own"), std::string::npos) << plan;
    // The two outputs' kernels (a point per thread, in tiles of rows) launched as one, each thread
    // computing both points: the input is read once.
    EXPECT_EQ(kernel_roots(plan).size(), 1u) << plan;
    EXPECT_EQ(Halide::Internal::find_direct_calls(m.where.function()).count(m.am.name()), 0u);
    EXPECT_EQ(Halide::Internal::find_direct_calls(m.pooled.function()).count(m.am.name()), 1u);
    Halide::Pipeline p({m.pooled, m.where});
    p.compile_jit(solder::make_target("opencl"));
    for (auto [W, H, C] : std::vector<std::array<int, 3>>{{112, 112, 4}, {37, 19, 3}, {1, 1, 1}})
        expect_max_pool_matches(m, p, "opencl", W, H, C, plan);
}

// Turned off (`--disable cloned_reductions`), the argmax two kernels read is stored.
TEST(ClonedReductions, TurnedOffTheArgmaxIsStored) {
    MaxPool m;
    solder::autosched::PlannerOptions opt;
    opt.cloned_reductions = false;
    const std::string plan = solder::testing::schedule_with_solder({m.pooled, m.where}, "opencl", opt);
    EXPECT_TRUE(stores(plan, "argmax")) << plan;
}

// Where the copies would cost more, the plan without them is kept, the outputs calling the one
// reduction again, and it runs right: the nearest of 4096 binary descriptors to each of 4096 others
// (Hamming distances), its index and its distance two outputs of one argmin. The argmin is cut into
// chunks folded in order (autosched/ordered_folds.h), whose fold over the chunks is small; copied,
// each 1-D output's kernel would walk it alone, where stored the two launch together.
TEST(ClonedReductions, CopiesThatCostMoreAreUndone) {
    using namespace Halide;
    ImageParam query(UInt(32), 2, "hd_query"), train(UInt(32), 2, "hd_train");
    Var i("i"), t("t");
    RDom wd(0, query.dim(0).extent(), "wd"), j(0, train.dim(1).extent(), "j");
    Func dist("hd_dist"), best("hd_best"), index("hd_index"), distance("hd_distance");
    dist(t, i) = sum(popcount(query(wd, i) ^ train(wd, t)));
    best(i) = argmin(j, dist(j, i));
    index(i) = best(i)[0];
    distance(i) = best(i)[1];
    query.set_estimates({{0, 8}, {0, 4096}});
    train.set_estimates({{0, 8}, {0, 4096}});
    index.set_estimates({{0, 4096}});
    distance.set_estimates({{0, 4096}});
    const std::string plan = solder::testing::schedule_with_solder({index, distance}, "opencl");
    EXPECT_NE(plan.find("without the copies"), std::string::npos) << plan;
    for (const Func &f : {index, distance})
        EXPECT_TRUE(Internal::find_direct_calls(f.function()).count(best.name())) << f.name() << " calls a copy";
    Pipeline p({index, distance});
    p.compile_jit(solder::make_target("opencl"));
    const int D = 3, Q = 37, T = 53;
    Buffer<uint32_t> q(D, Q), tr(D, T);
    fill_bits(q, 12345);
    fill_bits(tr, 54321);
    query.set(q);
    train.set(tr);
    Buffer<int> idx(Q);
    Buffer<uint32_t> d(Q);
    p.realize({idx, d}, solder::make_target("opencl"));
    idx.copy_to_host();
    d.copy_to_host();
    int wrong = 0;
    for (int a = 0; a < Q; a++) {
        int best_t = 0, best_d = 1 << 30;  // (the first nearest wins, as Halide's argmin)
        for (int b = 0; b < T; b++) {
            int s = 0;
            for (int k = 0; k < D; k++) s += __builtin_popcount(q(k, a) ^ tr(k, b));
            if (s < best_d) best_d = s, best_t = b;
        }
        wrong += idx(a) != best_t || int(d(a)) != best_d;
    }
    EXPECT_EQ(wrong, 0) << plan;
}

// Each pixel's nearest entry of a 16-colour palette: its index an output, the palette's colour at
// it another, read by each of the pixel's 3 channels (a call at some of the caller's vars). Such a
// caller does not count (a copy in the index's kernel measured twice as slow on the H100): the
// argmin is not copied, both outputs call it, and both match plain loops on OpenCL.
TEST(ClonedReductions, AReductionReadByEachChannelOfAPixelIsNotCopied) {
    using namespace Halide;
    ImageParam img(UInt(8), 3, "pl_img"), pal(UInt(8), 2, "pl_pal");
    Var x("x"), y("y"), c("c");
    RDom k(0, pal.dim(1).extent(), "k");
    auto diff = [&](int ch) { return cast<int>(img(x, y, ch)) - cast<int>(pal(ch, k)); };
    Func nearest("pl_nearest"), index("pl_index"), out("pl_out");
    nearest(x, y) = argmin(k, diff(0) * diff(0) + diff(1) * diff(1) + diff(2) * diff(2))[0];
    index(x, y) = cast<uint8_t>(nearest(x, y));
    out(x, y, c) = pal(c, clamp(nearest(x, y), 0, pal.dim(1).extent() - 1));
    img.set_estimates({{0, 1920}, {0, 1080}, {0, 3}});
    pal.set_estimates({{0, 3}, {0, 16}});
    index.set_estimates({{0, 1920}, {0, 1080}});
    out.set_estimates({{0, 1920}, {0, 1080}, {0, 3}});
    const std::string plan = solder::testing::schedule_with_solder({out, index}, "opencl");
    EXPECT_EQ(plan.find("read copies of their own"), std::string::npos) << plan;
    for (const Func &f : {index, out})
        EXPECT_TRUE(Internal::find_direct_calls(f.function()).count(nearest.name())) << f.name();
    Pipeline p({out, index});
    p.compile_jit(solder::make_target("opencl"));
    const int W = 41, H = 23, N = 16;
    Buffer<uint8_t> im(W, H, 3), pl(3, N);
    fill_bits(im, 99);
    fill_bits(pl, 98);
    img.set(im);
    pal.set(pl);
    Buffer<uint8_t> o(W, H, 3), idx(W, H);
    p.realize({o, idx}, solder::make_target("opencl"));
    o.copy_to_host();
    idx.copy_to_host();
    int wrong = 0;
    for (int j = 0; j < H; j++)
        for (int i = 0; i < W; i++) {
            int best = 0, best_d = 1 << 30;  // (the first nearest wins, as Halide's argmin)
            for (int e = 0; e < N; e++) {
                int d = 0;
                for (int ch = 0; ch < 3; ch++) d += (int(im(i, j, ch)) - pl(ch, e)) * (int(im(i, j, ch)) - pl(ch, e));
                if (d < best_d) best_d = d, best = e;
            }
            wrong += idx(i, j) != best;
            for (int ch = 0; ch < 3; ch++) wrong += o(i, j, ch) != pl(ch, best);
        }
    EXPECT_EQ(wrong, 0) << plan;
}

// A reduction of more steps than kMaxClonedSteps per point is not copied: an argmax over 16 x 16.
TEST(ClonedReductions, ALongReductionIsNotCopied) {
    using namespace Halide;
    ImageParam in(Float(32), 2, "lr_in");
    Var x("x"), y("y");
    RDom r(0, 16, 0, 16, "r");
    Func am("lr_am"), value("lr_value"), index("lr_index");
    am(x, y) = argmax(in(16 * x + r.x, 16 * y + r.y));
    value(x, y) = am(x, y)[2];
    index(x, y) = am(x, y)[0] + 16 * am(x, y)[1];
    in.set_estimates({{0, 4096}, {0, 4096}});
    value.set_estimates({{0, 256}, {0, 256}});
    index.set_estimates({{0, 256}, {0, 256}});
    const std::string plan = solder::testing::schedule_with_solder({value, index}, "opencl");
    EXPECT_EQ(plan.find("copies of their own"), std::string::npos) << plan;
    EXPECT_EQ(plan.find("without the copies"), std::string::npos) << plan;
}

}  // namespace cloned_reductions_test
