// single_kernel_groups (on by default): a reduction alone in its kernel along the innermost dim of
// what it reads takes the block-reduction template (one block per result, the reduction split across
// the block's threads) instead of one thread per result; the result still matches plain loops on
// OpenCL. A reduction down the columns keeps one thread per result (reads coalesced across threads).
// Unknown SOLDER_ENABLE words are errors. A block or total reduction other kernels read takes one
// launch per step (its stages in a copy's launch).
#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>
#include <tuple>

#include "apps/ref_util.h"
#include "autosched/model/options.h"
#include "lang/lang.h"
#include "tests/support/plan_and_run.h"
#include "tests/support/user_pipeline.h"
#include "tests/support/plan_fields.h"

using namespace solder;
using namespace solder::lang;

TEST(SingleKernelGroups, ALoneReductionTakesTheBlockReductionTemplate) {
    const int64_t R = 5, C = 3001;  // a row length no block width divides
    Graph g;
    Tensor x = g.input("sx", DType::F32, {R, C});
    Tensor s = sum(x, {-1});
    set_estimates(s.func, s.shape);
    std::vector<Halide::Func> outs{s.func};

    SolderOptions off;
    off.disable("single_kernel_groups");
    EXPECT_EQ(solder::testing::plan_for(outs, off.planner, true).kernels.at(0).template_name(), "pointwise");
    SolderOptions opt;
    autosched::Plan plan = solder::testing::plan_for(outs, opt.planner, true);
    ASSERT_EQ(plan.kernels.size(), 1u);
    ASSERT_EQ(plan.kernels[0].template_name(), "block_reduction") << plan.to_text();

    std::vector<HostBuffer> in{make_host_buffer({"sx", DType::F32, {R, C}})};
    std::vector<HostBuffer> out{make_host_buffer({"s", DType::F32, {R}})};
    float *px = data_as<float>(in[0]);
    for (int64_t i = 0; i < R * C; i++) px[i] = float((i * 7919) % 101) / 50.0f - 1.0f;
    std::string source;
    ASSERT_EQ(solder::testing::apply_compile_and_call(plan, outs, {*x.param}, "opencl", in, out, &source), "");
    // The template really split the reduction: blocks over rows, partials over the threads.
    EXPECT_NE(source.find(".rfactor("), std::string::npos) << source;
    EXPECT_NE(source.find(".gpu_blocks("), std::string::npos) << source;
    const float *ps = data_as<float>(out[0]);
    for (int64_t r = 0; r < R; r++) {
        double want = 0;
        for (int64_t c = 0; c < C; c++) want += px[r * C + c];
        EXPECT_NEAR(ps[r], want, 1e-3) << "row " << r;
    }
}

TEST(SingleKernelGroups, AColumnSumKeepsOneThreadPerResult) {
    Graph g;
    Tensor x = g.input("cx", DType::F32, {4096, 1024});
    Tensor s = sum(x, {0});
    set_estimates(s.func, s.shape);
    autosched::Plan plan = solder::testing::plan_for({s.func}, {}, true);
    ASSERT_EQ(plan.kernels.size(), 1u);
    EXPECT_EQ(plan.kernels[0].template_name(), "pointwise") << plan.to_text();
}

TEST(SingleKernelGroups, UnknownEnableWordsAreErrors) {
    SolderOptions opt;
    try {
        opt.enable("single_kernel_groups,no_such_knob");
        FAIL() << "no error";
    } catch (const std::exception &e) {
        EXPECT_NE(std::string(e.what()).find("no_such_knob"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("single_kernel_groups"), std::string::npos) << e.what();
    }
}

namespace {

// A sum over the two inner dims (a group normalization's statistics over its planes), sizes from
// the input: planned at plan_w x plan_h for `results` results, taken by the template `kind`, run on
// OpenCL for 3 results at each of `runs` (w, h). At run-time
// extents the RVars are not fused into one walk (finding each point's RVars would divide by the
// width): the innermost RVar goes to `lanes_x` threads, the next to the rest (`lanes` in the plan's
// text). The values are multiples of 1/64 whose partial sums all stay below 2^18, so every order of
// summing gives the exact sum: a point summed twice or missed shows.
void expect_plane_sums(int plan_w, int plan_h, int results, const std::vector<std::pair<int, int>> &runs,
                       const std::string &kind, const std::string &lanes) {
    using namespace Halide;
    ImageParam in(Float(32), 3, "plane_in");
    RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
    Var n("n");
    Func s("plane_sum");
    s(n) = 0.f;
    s(n) += in(r.x, r.y, n);
    in.set_estimates({{0, plan_w}, {0, plan_h}, {0, results}});
    s.set_estimates({{0, results}});
    autosched::Plan plan = solder::testing::plan_for({s}, {}, true);
    ASSERT_EQ(plan.kernels.size(), 1u);
    ASSERT_EQ(plan.kernels[0].template_name(), kind) << plan.to_text();
    EXPECT_NE(plan.to_text().find(lanes + " lanes (innermost two RVars)"), std::string::npos) << plan.to_text();
    const std::string schedule = solder::testing::schedule_with_solder({s}, "opencl");
    EXPECT_EQ(schedule.find(".fuse(r_x, r_y"), std::string::npos) << schedule;
    for (auto [w, h] : runs) {
        Buffer<float> b(w, h, 3);
        int64_t i = 0;
        b.for_each_value([&](float &v) { v = float((i++ * 7919) % 101 - 50) / 64.0f; });
        b.set_host_dirty();
        in.set(b);
        Buffer<float> got = s.realize({3}, make_target("opencl"));
        got.copy_to_host();
        for (int k = 0; k < 3; k++) {
            double want = 0;
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++) want += b(x, y, k);
            EXPECT_EQ(double(got(k)), want) << "result " << k << " at " << w << " x " << h << "\n" << schedule;
        }
    }
}

}  // namespace

// Rows of 1000: all 256 lanes along a row, each thread walking the rest of its row in strides and
// then every row; no block width divides 300 x 1000. Planned for 512 results (blocks enough, one
// per result), run for 3.
TEST(SingleKernelGroups, AReductionOverSeveralInnerDimsTakesOneBlockPerResult) {
    expect_plane_sums(1000, 300, 512, {{1000, 300}, {517, 263}}, "block_reduction", "256 x 1");
}

// The same planned for 3 results, too few blocks to fill the device: each result's rows are cut
// into slices of 5, one block each, their partials added by one block per result. A slice's 5000
// points take 128 lanes, each walking at least 32 of them.
TEST(SingleKernelGroups, AReductionToFewResultsIsCutIntoSlicesOfRows) {
    expect_plane_sums(1000, 300, 3, {{1000, 300}, {517, 263}, {3, 2}, {1, 1}}, "total_reduction", "128 x 1");
}

// Planes of 64 x 64: 64 lanes along a row by 2 rows (4096 points per result, at least 32 per
// lane; group_norm's 32 planes of 64 x 64 per result take 64 x 4). Run also at 67 x 5, 3 x 2 and
// 1 x 1: rows and planes that no lane count divides, fewer rows than lanes, one point.
TEST(SingleKernelGroups, NarrowPlanesAreSplitOverTwoDimensionalLanes) {
    expect_plane_sums(64, 64, 3, {{64, 64}, {67, 5}, {3, 2}, {1, 1}}, "block_reduction", "64 x 2");
}

// A matrix product as users write it, planned at 2048 x 2048 x 1024: B(i, k) is read along the
// results, so lanes along k would read it a row apart each. It keeps one thread per result (in
// blocks of one result each it took 34.7 ms on the H100 against 1.36 ms), and matches plain loops on
// OpenCL at sizes no tile divides.
TEST(SingleKernelGroups, AMatrixProductKeepsOneThreadPerResult) {
    using namespace Halide;
    ImageParam a(Float(32), 2, "mm_a"), b(Float(32), 2, "mm_b");
    Var i("i"), j("j");
    RDom k(0, a.dim(0).extent(), "k");
    Func c("mm_c");
    c(i, j) = 0.0f;
    c(i, j) += a(k, j) * b(i, k);
    a.set_estimates({{0, 1024}, {0, 2048}});
    b.set_estimates({{0, 2048}, {0, 1024}});
    c.set_estimates({{0, 2048}, {0, 2048}});
    autosched::Plan plan = solder::testing::plan_for({c}, {}, true);
    ASSERT_EQ(plan.kernels.size(), 1u);
    EXPECT_EQ(plan.kernels[0].template_name(), "pointwise") << plan.to_text();
    // A row sum over the same extents still takes a block per result: it reads nothing along its
    // results.
    Func rs("mm_rowsum");
    rs(j) = 0.0f;
    rs(j) += a(k, j);
    rs.set_estimates({{0, 2048}});
    EXPECT_EQ(solder::testing::plan_for({rs}, {}, true).kernels.at(0).template_name(), "block_reduction");

    solder::testing::schedule_with_solder({c}, "opencl");
    for (auto [M, N, K] : {std::tuple{37, 45, 70}, std::tuple{1, 1, 1}, std::tuple{65, 3, 300}}) {
        Buffer<float> av(K, M), bv(N, K);
        int64_t s = 0;
        av.for_each_value([&](float &v) { v = float((s++ * 7919) % 17 - 8) / 8.0f; });
        bv.for_each_value([&](float &v) { v = float((s++ * 104729) % 13 - 6) / 8.0f; });
        av.set_host_dirty();
        bv.set_host_dirty();
        a.set(av);
        b.set(bv);
        Buffer<float> got = c.realize({N, M}, make_target("opencl"));
        got.copy_to_host();
        for (int m = 0; m < M; m++)
            for (int n = 0; n < N; n++) {
                double want = 0;
                for (int q = 0; q < K; q++) want += double(av(q, m)) * double(bv(n, q));
                ASSERT_EQ(double(got(n, m)), want) << n << ", " << m << " of " << N << " x " << M << " x " << K;
            }
    }
}

// Statistics that another kernel reads (a group normalization's plane means, no output): the
// block reduction computes both of its stages in the launch of a copy that every reader reads, and
// a total reduction its partials and their sum likewise, one launch each (at root, each pure stage
// was a launch of its own, a thread per block). Written as users write it, planned at its
// estimates, and run on the host and OpenCL at sizes no lane count divides and at one point.
TEST(SingleKernelGroups, AReductionOtherKernelsReadTakesOneLaunchPerStep) {
    using namespace Halide;
    // (1024 planes of 64 x 64 at the estimates: a block each; 64 of 256 x 256: cut into slices.)
    for (auto [estimate, kind, launches] : {std::tuple{std::vector<int>{64, 64, 1024}, "block_reduction", 1},
                                            std::tuple{std::vector<int>{256, 256, 64}, "total_reduction", 2}}) {
        SCOPED_TRACE(kind);
        ImageParam in(Float(32), 3, "pin");
        RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
        Var x("x"), y("y"), c("c");
        Func plane("plane"), total("total"), out("out");
        plane(c) = 0.0f;
        plane(c) += in(r.x, r.y, c);
        RDom k(0, in.dim(2).extent(), "k");
        total() = 0.0f;
        total() += plane(k);
        out(x, y, c) = in(x, y, c) - plane(c) / cast<float>(in.dim(0).extent() * in.dim(1).extent()) + total();
        in.set_estimates({{0, estimate[0]}, {0, estimate[1]}, {0, estimate[2]}});
        out.set_estimates({{0, estimate[0]}, {0, estimate[1]}, {0, estimate[2]}});
        autosched::Plan plan = solder::testing::plan_for({out}, {}, true);
        bool found = false;
        for (auto &kp : plan.kernels)
            if (kp.root.substr(0, kp.root.find('$')) == "plane") {
                found = true;
                EXPECT_EQ(kp.template_name(), kind) << plan.to_text();
                EXPECT_EQ(kp.launches, launches) << plan.to_text();
            }
        EXPECT_TRUE(found) << plan.to_text();
        for (auto &target : solder::testing::user_targets()) {
            SCOPED_TRACE("target " + target);
            const std::string text = solder::testing::schedule_with_solder({out}, target);
            if (target != "host") {
                EXPECT_TRUE(std::regex_search(text, std::regex(R"(plane\w*\.in\(\))"))) << text;
            }
            Pipeline p = solder::testing::compiled({out}, target);
            for (std::vector<int> sz : {std::vector<int>{37, 29, 5}, {300, 3, 2}, {1, 1, 1}}) {
                SCOPED_TRACE(std::to_string(sz[0]) + "x" + std::to_string(sz[1]) + "x" + std::to_string(sz[2]));
                auto a = solder::testing::random_buffer<float>(sz, 31, -1, 1);
                in.set(a);
                Buffer<float> o = solder::testing::realize_on<float>(p, sz, target);
                std::vector<double> sums(size_t(sz[2]), 0.0);
                double all = 0;
                for (int cc = 0; cc < sz[2]; cc++) {
                    for (int yy = 0; yy < sz[1]; yy++)
                        for (int xx = 0; xx < sz[0]; xx++) sums[size_t(cc)] += a(xx, yy, cc);
                    all += sums[size_t(cc)];
                }
                EXPECT_TRUE(solder::testing::matches(
                    o,
                    [&](auto &q) {
                        return double(a(q[0], q[1], q[2])) - sums[size_t(q[2])] / double(sz[0] * sz[1]) + all;
                    },
                    1e-4))
                    << text;
            }
        }
    }
}

// A matrix-vector product over 4-bit weights packed two to a byte, written as users write it: a
// pure Func dequantizes a weight, the sum reads it along its RVar. The dequantization is inlined
// into a block reduction per result (each block's lanes read their row's bytes side by side); the
// template had refused any kernel with a Func besides its root, and split-K then gave each thread
// a result, a warp's loads a row of bytes apart each.
TEST(SingleKernelGroups, AReductionThroughAPureFuncTakesABlockPerResultAtAnySize) {
    using namespace Halide;
    for (const std::string &target : solder::testing::user_targets()) {
        SCOPED_TRACE(target);
        ImageParam wq(UInt(8), 2, "q4w"), scale(Float(32), 2, "q4scale"), v(Float(32), 1, "q4v");
        Var k("k"), n("n");
        Func deq("q4deq"), out("q4out");
        Expr byte = wq(k / 2, n);
        Expr nib = select(k % 2 == 0, byte & 15, byte >> 4);
        deq(k, n) = (cast<float>(nib) - 8.0f) * scale(k / 128, n);
        RDom r(0, v.dim(0).extent(), "q4r");
        out(n) = sum(deq(r, n) * v(r));
        wq.set_estimates({{0, 2048}, {0, 11008}});
        scale.set_estimates({{0, 32}, {0, 11008}});
        v.set_estimates({{0, 4096}});
        out.set_estimates({{0, 11008}});
        const std::string plan = solder::testing::schedule_with_solder({out}, target);
        if (target != "host") {
            EXPECT_NE(plan.find("[block_reduction]"), std::string::npos) << plan;
            EXPECT_TRUE(std::regex_search(plan, std::regex("inlined: q4deq"))) << plan;
        }
        Pipeline p(out);
        p.compile_jit(make_target(target));
        for (auto [K, N] : std::vector<std::pair<int, int>>{{512, 300}, {256, 7}, {2, 1}, {130, 33}}) {
            SCOPED_TRACE(std::to_string(K) + " x " + std::to_string(N));
            auto w = solder::testing::random_buffer<uint8_t>({(K + 1) / 2, N}, 31, 0, 255);
            auto s = solder::testing::random_buffer<float>({(K + 127) / 128, N}, 32, -1, 1);
            auto x = solder::testing::random_buffer<float>({K}, 33, -1, 1);
            wq.set(w);
            scale.set(s);
            v.set(x);
            Buffer<float> got = solder::testing::realize_on<float>(p, {N}, target);
            EXPECT_TRUE(solder::testing::matches(
                got,
                [&](auto &q) {
                    double acc = 0;
                    for (int i = 0; i < K; i++) {
                        const int b = w(i / 2, q[0]), nibble = i % 2 == 0 ? (b & 15) : (b >> 4);
                        acc += (nibble - 8.0) * s(i / 128, q[0]) * x(i);
                    }
                    return acc;
                },
                1e-4))
                << plan;
        }
    }
}
