// Reductions over an RDom with a predicate (RDom::where) as kernel roots: a causal row sum (the
// predicate names the result's own coordinate), a masked row sum and a masked image total (the
// predicate loads a mask). On a GPU the block and total reduction templates take them, the
// predicate evaluated at each point of each lane's walk (autosched/model/generic_reason.h:
// predicated_reduction); before, each result ran in one thread of the generic template. Planned at
// one size, run at others on the host and OpenCL against plain C++.
#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>
#include <vector>

#include "tests/support/user_pipeline.h"

using namespace Halide;
using namespace solder::testing;

TEST(PredicatedReductions, ACausalRowSumIsABlockReduction) {
    for (auto &target : user_targets()) {
        SCOPED_TRACE(target);
        ImageParam in(Float(32), 2, "cin");
        Var y("y");
        RDom r(0, in.dim(0).extent(), "r");
        r.where(r <= y);
        Func causal("causal");
        causal(y) = 0.0f;
        causal(y) += in(r, y);
        in.set_estimates({{0, 2048}, {0, 2048}});
        causal.set_estimates({{0, 2048}});
        const std::string plan = schedule_with_solder({causal}, target);
        if (target != "host") {
            EXPECT_NE(plan.find("[block_reduction]"), std::string::npos) << plan;
            EXPECT_NE(plan.find("its RDom's predicate evaluated at each point"), std::string::npos) << plan;
        }
        Pipeline p(causal);
        p.compile_jit(solder::make_target(target));
        for (auto [w, h] : std::vector<std::pair<int, int>>{{300, 200}, {37, 29}, {5, 40}, {1, 1}}) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            auto a = random_buffer<float>({w, h}, 81, -1, 1);
            in.set(a);
            Buffer<float> o = realize_on<float>(p, {h}, target);
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    double s = 0;
                    for (int i = 0; i <= q[0] && i < w; i++) s += a(i, q[0]);
                    return s;
                },
                1e-4))
                << plan;
        }
    }
}

// The predicate loads a mask: a masked row sum (one block per row) and the masked image total (a
// 0-d reduction: slices of rows, then their partials added).
TEST(PredicatedReductions, MaskedSumsOfRowsAndOfTheImage) {
    for (auto &target : user_targets()) {
        SCOPED_TRACE(target);
        ImageParam in(Float(32), 2, "min"), mask(UInt(8), 2, "mmask");
        Var y("y");
        RDom r(0, in.dim(0).extent(), "r"), all(0, in.dim(0).extent(), 0, in.dim(1).extent(), "all");
        r.where(mask(r, y) != 0);
        all.where(mask(all.x, all.y) != 0);
        Func rows("masked_rows"), total("masked_total");
        rows(y) = 0.0f;
        rows(y) += in(r, y);
        total() = 0.0f;
        total() += in(all.x, all.y);
        in.set_estimates({{0, 2048}, {0, 1100}});
        mask.set_estimates({{0, 2048}, {0, 1100}});
        rows.set_estimates({{0, 1100}});
        const std::string plan = schedule_with_solder({rows, total}, target);
        if (target != "host") {
            EXPECT_NE(plan.find("[block_reduction"), std::string::npos) << plan;
            EXPECT_NE(plan.find("[total_reduction"), std::string::npos) << plan;
        }
        Pipeline p({rows, total});
        p.compile_jit(solder::make_target(target));
        for (auto [w, h] : std::vector<std::pair<int, int>>{{700, 300}, {37, 29}, {1, 1}}) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            auto a = random_buffer<float>({w, h}, 82, -1, 1);
            auto m = random_buffer<uint8_t>({w, h}, 83, 0, 2);
            in.set(a);
            mask.set(m);
            Buffer<float> ro(h);
            Buffer<float> to = Buffer<float>::make_scalar();
            p.realize({ro, to}, solder::make_target(target));
            ro.copy_to_host();
            to.copy_to_host();
            double whole = 0;
            for (int j = 0; j < h; j++)
                for (int i = 0; i < w; i++) whole += m(i, j) ? a(i, j) : 0.0;
            EXPECT_NEAR(to(), whole, 1e-3 * (1 + std::abs(whole))) << plan;
            EXPECT_TRUE(matches(
                ro,
                [&](auto &q) {
                    double s = 0;
                    for (int i = 0; i < w; i++) s += m(i, q[0]) ? a(i, q[0]) : 0.0;
                    return s;
                },
                1e-4))
                << plan;
        }
    }
}

// Not taken from the generic template: a predicated update Halide cannot prove associative.
TEST(PredicatedReductions, APredicatedUpdateThatIsNotAssociativeStaysGeneric) {
    ImageParam in(Float(32), 2, "gin");
    Var y("y");
    RDom r(0, in.dim(0).extent(), "r");
    r.where(r <= y);
    Func decay("decay");
    decay(y) = 0.0f;
    decay(y) = decay(y) * 0.5f + in(r, y);
    in.set_estimates({{0, 2048}, {0, 2048}});
    decay.set_estimates({{0, 2048}});
    const std::string plan = schedule_with_solder({decay}, "opencl");
    EXPECT_NE(plan.find("k0_" + decay.name() + " [generic"), std::string::npos) << plan;
}

// Sums of CSR segments (a length from the offsets, up to a Param of 32 estimated): the predicate
// loads the offsets at the segment's own index. Halide lifts it into the RVar's extent where the
// RVar loop is innermost and bounds that load over every point of a split of the segments, its
// guarded tail included: a thread per segment in blocks of 64 asked for offsets beyond the last
// (`soff is accessed at 3072, beyond the max (3000)`). At 65536 segments each thread takes two
// neighbouring segments inside its walk (the predicate stays a test at each point); at 1024, a
// block each (the block reduction). Run at sizes that are a multiple of 64 and that are not.
TEST(PredicatedReductions, SegmentsWhosePredicateLoadsAtTheSegmentAreCorrectAtAnySize) {
    std::string last_plan;
    try {
        for (auto &target : user_targets())
            for (int segments : {65536, 1024}) {
                SCOPED_TRACE(target + ", planned for " + std::to_string(segments) + " segments");
                ImageParam vals(Float(32), 1, "svals"), off(Int(32), 1, "soff");
                Param<int> max_len("max_len");
                max_len.set_estimate(32);
                Var i("i");
                RDom r(0, max_len, "r");
                r.where(r < off(i + 1) - off(i));
                Func out("segsum");
                out(i) = 0.0f;
                out(i) += vals(clamp(off(i) + r, 0, vals.dim(0).extent() - 1));
                vals.set_estimates({{0, segments * 16}});
                off.set_estimates({{0, segments + 1}});
                out.set_estimates({{0, segments}});
                const std::string plan = schedule_with_solder({out}, target);
                last_plan = target + plan;
                if (target != "host" && segments == 1024) {
                    EXPECT_NE(plan.find("[block_reduction"), std::string::npos) << plan;
                }
                if (target != "host" && segments == 65536) {
                    EXPECT_NE(plan.find("stage 1 2 points per thread inside its walk"), std::string::npos) << plan;
                    // (Its steps not unrolled: each would test the predicate under a guard.)
                    EXPECT_NE(plan.find("stage 1 walked a step at a time"), std::string::npos) << plan;
                }
                Pipeline p(out);
                p.compile_jit(solder::make_target(target));
                for (auto [n, len] :
                     std::vector<std::pair<int, int>>{{3000, 32}, {3072, 20}, {77, 5}, {64, 3}, {1, 40}}) {
                    SCOPED_TRACE(std::to_string(n) + " segments of up to " + std::to_string(len));
                    Buffer<int> o(n + 1);
                    auto lens = random_buffer<int>({n}, 84, 0, len + 1);
                    o(0) = 0;
                    for (int k = 0; k < n; k++) o(k + 1) = o(k) + lens(k);
                    auto v = random_buffer<float>({std::max(1, o(n))}, 85, -1, 1);
                    vals.set(v);
                    off.set(o);
                    max_len.set(len);
                    Buffer<float> got = realize_on<float>(p, {n}, target);
                    EXPECT_TRUE(matches(
                        got,
                        [&](auto &q) {
                            double s = 0;
                            for (int k = o(q[0]); k < o(q[0] + 1); k++) s += v(k);
                            return s;
                        },
                        1e-4))
                        << plan;
                }
            }
    } catch (Halide::Error &e) {
        FAIL() << e.what() << last_plan;
    }
}

// The mean of each sequence's first len(b) token vectors (lengths from a buffer): the predicate
// loads at the result's own index, as a CSR segment's does, but the sum reads along the results
// (`x(c, r, b)`, channels innermost), not along its RVar. A block per result had its lanes load a
// row of channels apart each; a thread per result reads its neighbours' channels coalesced.
TEST(PredicatedReductions, AMaskedMeanAlongTheResultsIsNoBlockReductionAndRunsAtAnySize) {
    for (auto &target : user_targets()) {
        SCOPED_TRACE(target);
        ImageParam x(Float(32), 3, "mx"), len(Int(32), 1, "mlen");
        Var c("c"), b("b");
        Expr T = x.dim(1).extent();
        Expr L = clamp(len(b), 1, T);
        RDom r(0, T, "r");
        r.where(r < L);
        Func total("mtotal"), out("mmean");
        total(c, b) = 0.0f;
        total(c, b) += x(c, r, b);
        out(c, b) = total(c, b) / cast<float>(L);
        x.set_estimates({{0, 768}, {0, 512}, {0, 64}});
        len.set_estimates({{0, 64}});
        out.set_estimates({{0, 768}, {0, 64}});
        const std::string plan = schedule_with_solder({out}, target);
        if (target != "host") {
            EXPECT_EQ(plan.find("[block_reduction"), std::string::npos) << plan;
        }
        Pipeline p(out);
        p.compile_jit(solder::make_target(target));
        for (auto [C, T_, B] :
             std::vector<std::tuple<int, int, int>>{{768, 64, 5}, {37, 29, 3}, {1, 1, 1}, {300, 7, 2}}) {
            SCOPED_TRACE(std::to_string(C) + "x" + std::to_string(T_) + "x" + std::to_string(B));
            auto xs = random_buffer<float>({C, T_, B}, 90, -1, 1);
            auto ls = random_buffer<int>({B}, 91, -2, T_ + 3);
            x.set(xs);
            len.set(ls);
            Buffer<float> got = realize_on<float>(p, {C, B}, target);
            EXPECT_TRUE(matches(
                got,
                [&](auto &q) {
                    const int l = std::clamp(ls(q[1]), 1, T_);
                    double s = 0;
                    for (int k = 0; k < l; k++) s += xs(q[0], k, q[1]);
                    return s / l;
                },
                1e-4))
                << plan;
        }
    }
}

// A reduction refined in place by later updates, as users write a mean or a norm (`norm(y) +=
// in(r, y) * in(r, y); norm(y) = sqrt(norm(y)); norm(y) = norm(y) + bias`): the block reduction
// template takes it, each later update a launch over the results (before: the generic template, a
// thread per row walking its 2048 points serially, est 372 us). Also with a uniform predicate; a
// later update that writes one point (not each in place) stays generic. Run at other sizes.
TEST(PredicatedReductions, ReductionsRefinedInPlaceAreBlockReductions) {
    std::string last_plan;
    try {
        for (auto &target : user_targets())
            for (int variant : {0, 1, 2}) {
                SCOPED_TRACE(target + ", variant " + std::to_string(variant));
                ImageParam in(Float(32), 2, "rin");
                Param<float> bias("bias");
                bias.set_estimate(0.5f);
                Var x("x"), y("y");
                RDom r(0, in.dim(0).extent(), "r");
                if (variant == 1) r.where(r % 2 == 0);
                Func norm("norm"), out("rout");
                norm(y) = 0.0f;
                norm(y) += in(r, y) * in(r, y);
                norm(y) = sqrt(norm(y));
                norm(y) = norm(y) + bias;
                if (variant == 2) norm(0) = norm(0) + 1.0f;  // a point of its own: no refinement in place
                out(x, y) = in(x, y) / norm(y);
                in.set_estimates({{0, 2048}, {0, 4096}});
                out.set_estimates({{0, 2048}, {0, 4096}});
                const std::string plan = schedule_with_solder({out}, target);
                last_plan = target + plan;
                if (target != "host") {
                    EXPECT_EQ(plan.find("[block_reduction]") != std::string::npos, variant != 2) << plan;
                }
                Pipeline p(out);
                p.compile_jit(solder::make_target(target));
                for (auto [w, h] : std::vector<std::pair<int, int>>{{300, 200}, {37, 29}, {1, 1}}) {
                    SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
                    auto a = random_buffer<float>({w, h}, 86, -1, 1);
                    in.set(a);
                    bias.set(0.5f);
                    Buffer<float> o = realize_on<float>(p, {w, h}, target);
                    EXPECT_TRUE(matches(
                        o,
                        [&](auto &q) {
                            double s = 0;
                            for (int i = 0; i < w; i += variant == 1 ? 2 : 1) s += double(a(i, q[1])) * a(i, q[1]);
                            return a(q[0], q[1]) / (std::sqrt(s) + 0.5 + (variant == 2 && q[1] == 0 ? 1.0 : 0.0));
                        },
                        1e-4))
                        << plan;
                }
            }
    } catch (Halide::Error &e) {
        FAIL() << e.what() << last_plan;
    }
}

// A histogram of the pixels above a threshold, `r.where(in(r.x, r.y) > t)`: the predicate loads
// the input at the RVars, and Halide bounds those loads over every step of a guarded split's
// rounded-up loop (a chunk of 8 rows, an unrolled walk), so a plan that splits the RVars read the
// input past its end at sizes the split does not divide (an error at 37 x 19 on OpenCL, whose
// plan unrolls the walk by 8). The predicate's loads are clamped to the RDom's bounds
// (autosched/clamped_predicates.h). Planned at 2048 x 2048, run at sizes no split divides, a Tuple
// of sums and counts as well.
TEST(PredicatedReductions, AHistogramOfThePixelsAboveAThresholdRunsAtAnySize) {
    for (auto &target : user_targets()) {
        SCOPED_TRACE(target);
        ImageParam in(Float(32), 2, "thin");
        Param<float> t("tht");
        t.set_estimate(0.25f);
        Var i("i");
        RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "thr");
        r.where(in(r.x, r.y) > t);
        Func hist("thhist"), stats("thstats");
        Expr b = clamp(cast<int>(in(r.x, r.y) * 16.0f), 0, 15);
        hist(i) = 0;
        hist(b) += 1;
        stats(i) = Tuple(0.0f, 0);
        stats(b) = Tuple(stats(b)[0] + in(r.x, r.y), stats(b)[1] + 1);
        in.set_estimates({{0, 2048}, {0, 2048}});
        hist.set_estimates({{0, 16}});
        stats.set_estimates({{0, 16}});
        const std::string plan = schedule_with_solder({hist, stats}, target);
        EXPECT_NE(plan.find("the loads of its RDom's predicate are clamped"), std::string::npos) << plan;
        Pipeline p({hist, stats});
        p.compile_jit(solder::make_target(target));
        for (float th : {0.25f, -2.0f})
            for (auto [w, h] : std::vector<std::pair<int, int>>{{37, 19}, {300, 7}, {1, 1}, {64, 64}}) {
                SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " above " + std::to_string(th));
                auto a = random_buffer<float>({w, h}, uint32_t(w * h), 0, 1);
                in.set(a);
                t.set(th);
                Buffer<int> ho(16), co(16);
                Buffer<float> so(16);
                p.realize({ho, so, co}, solder::make_target(target));
                ho.copy_to_host();
                so.copy_to_host();
                co.copy_to_host();
                std::vector<int> want(16, 0);
                std::vector<double> sums(16, 0);
                for (int j = 0; j < h; j++)
                    for (int k = 0; k < w; k++)
                        if (a(k, j) > th) {
                            const int bin = std::clamp(int(a(k, j) * 16.0f), 0, 15);
                            want[size_t(bin)]++;
                            sums[size_t(bin)] += a(k, j);
                        }
                for (int k = 0; k < 16; k++) {
                    EXPECT_EQ(ho(k), want[size_t(k)]) << "bin " << k << "\n" << plan;
                    EXPECT_EQ(co(k), want[size_t(k)]) << "bin " << k;
                    EXPECT_NEAR(so(k), sums[size_t(k)], 1e-3 * (1 + sums[size_t(k)])) << "bin " << k;
                }
            }
    }
}
