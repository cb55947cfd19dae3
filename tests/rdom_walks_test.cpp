// Recurrences written over an RDom of two dims or more, as users write them when a Func's pure var
// may not appear shifted in its own update: where each step of the outer RVars reads only other
// steps (a seam's cumulative cost, each row from the row above), the innermost RVar's points run
// at once in one block, a barrier between steps; where each point of the innermost RVar walks on
// its own (a recursive filter down each column), a thread walks each. Else one thread walks the
// RDom. And an atomic scatter whose store takes one of its RVars as it is (a Hough transform's angle)
// lays that RVar along the threads, so that a warp's adds go to as many bins. Each planned at its
// estimates and run on the host and on OpenCL at other sizes against a plain C++ reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <vector>

#include "autosched/model/generic_reason.h"
#include "tests/support/plan_and_run.h"
#include "tests/support/plan_fields.h"
#include "tests/support/user_pipeline.h"

using namespace Halide;
using namespace solder::testing;
using solder::autosched::GenericParams;
using solder::autosched::Plan;

namespace {

// The run sizes: narrower than a warp, wider than the block's threads (512) and not a multiple of
// them, one row, one column, one point.
std::vector<std::vector<int>> walk_sizes() { return {{37, 29}, {1100, 7}, {5, 1}, {1, 9}, {1, 1}}; }

}  // namespace

// A seam-carving cost: the energy (the gradient's magnitude, the edges repeated), then each row's
// cost from the three neighbours above it. The energy is stored first: inlined, each of the walk's
// steps would recompute it in the one block.
TEST(RDomWalks, ARowFromTheRowAboveRunsItsPointsAtOnceInOneBlock) {
    ImageParam in(Float(32), 2, "seam_in");
    auto define = [&] {
        Var x("x"), y("y");
        Func e = BoundaryConditions::repeat_edge(in);
        Func energy("energy"), cost("cost");
        energy(x, y) = abs(e(x + 1, y) - e(x - 1, y)) + abs(e(x, y + 1) - e(x, y - 1));
        Expr w = in.dim(0).extent();
        RDom r(0, w, 1, in.dim(1).extent() - 1, "r");
        cost(x, y) = energy(x, y);
        cost(r.x, r.y) = energy(r.x, r.y) + min(cost(r.x, r.y - 1), min(cost(max(r.x - 1, 0), r.y - 1),
                                                                        cost(min(r.x + 1, w - 1), r.y - 1)));
        cost.set_estimates({{0, 1920}, {0, 1080}});
        return cost;
    };
    in.set_estimates({{0, 1920}, {0, 1080}});
    {
        Func cost = define();
        EXPECT_TRUE(solder::autosched::innermost_rvar_parallel_per_step(cost.function(), 0));
        EXPECT_FALSE(solder::autosched::innermost_rvar_independent(cost.function(), 0));
        Plan plan = plan_for({cost}, {}, true);
        const auto *k = kernel_rooted_at(plan, "cost");
        ASSERT_NE(k, nullptr) << plan.to_text();
        const GenericParams &p = params_of<GenericParams>(*k, "generic");
        ASSERT_EQ(p.stage_step_threads.size(), 2u) << plan.to_text();
        EXPECT_EQ(p.stage_step_threads[1], 512) << plan.to_text();
        EXPECT_NE(kernel_rooted_at(plan, "energy"), nullptr) << plan.to_text();
        // Every step's barrier is there in the PTX: the walk's two unrolled steps each end in one.
        Func c2 = define();
        schedule_with_solder({c2}, "cuda");
        const std::string stmt = ::testing::TempDir() + "/seam_walk.stmt";
        Pipeline(c2).compile_to_lowered_stmt(stmt, {in}, Halide::StmtOutputFormat::Text, solder::make_target("cuda"));
        std::ifstream f(stmt);
        const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
        size_t barriers = 0;
        for (size_t at = text.find("bar.sync"); at != std::string::npos; at = text.find("bar.sync", at + 1)) barriers++;
        EXPECT_GE(barriers, 2u) << text;
    }
    for (auto &target : user_targets()) {
        SCOPED_TRACE("target " + target);
        Func cost = define();
        const std::string text = schedule_with_solder({cost}, target);
        if (target != "host") {
            EXPECT_NE(text.find("a barrier between steps"), std::string::npos) << text;
        }
        Pipeline pl = compiled({cost}, target);
        for (const std::vector<int> &sz : walk_sizes()) {
            SCOPED_TRACE(std::to_string(sz[0]) + "x" + std::to_string(sz[1]));
            auto a = random_buffer<float>(sz, 5, 0, 1);
            in.set(a);
            Buffer<float> o = realize_on<float>(pl, sz, target);
            const int W = sz[0], H = sz[1];
            auto at = [&](int i, int j) { return a(std::clamp(i, 0, W - 1), std::clamp(j, 0, H - 1)); };
            std::vector<float> want(size_t(W) * size_t(H));
            for (int j = 0; j < H; j++)
                for (int i = 0; i < W; i++) {
                    const float en = std::abs(at(i + 1, j) - at(i - 1, j)) + std::abs(at(i, j + 1) - at(i, j - 1));
                    float above = 0;
                    if (j > 0) {
                        const float *row = &want[size_t(j - 1) * size_t(W)];
                        above = std::min(row[i], std::min(row[std::max(i - 1, 0)], row[std::min(i + 1, W - 1)]));
                    }
                    want[size_t(j) * size_t(W) + size_t(i)] = en + above;
                }
            EXPECT_TRUE(matches(
                o, [&](auto &q) { return want[size_t(q[1]) * size_t(W) + size_t(q[0])]; }, 1e-5))
                << text;
        }
    }
}

// A recursive filter down each column, written over an RDom of both dims: each column's walk reads
// only its own column, so each point of the innermost RVar walks in a thread of its own.
TEST(RDomWalks, AColumnThatReadsOnlyItselfWalksInAThreadOfItsOwn) {
    ImageParam in(Float(32), 2, "col_in");
    Param<float> gain("gain");
    auto define = [&] {
        Var x("x"), y("y");
        Func f("f");
        f(x, y) = in(x, y);
        RDom r(0, in.dim(0).extent(), 1, in.dim(1).extent() - 1, "r");
        f(r.x, r.y) = gain * f(r.x, r.y - 1) + (1 - gain) * in(r.x, r.y);
        f.set_estimates({{0, 3840}, {0, 2160}});
        return f;
    };
    in.set_estimates({{0, 3840}, {0, 2160}});
    gain.set_estimate(0.9f);
    {
        Func f = define();
        EXPECT_TRUE(solder::autosched::innermost_rvar_independent(f.function(), 0));
        Plan plan = plan_for({f}, {}, true);
        const auto *k = kernel_rooted_at(plan, "f");
        ASSERT_NE(k, nullptr) << plan.to_text();
        const GenericParams &p = params_of<GenericParams>(*k, "generic");
        ASSERT_EQ(p.stage_walk_threads.size(), 2u) << plan.to_text();
        EXPECT_GT(p.stage_walk_threads[1], 0) << plan.to_text();
        EXPECT_EQ(p.stage_step_threads[1], 0) << plan.to_text();
    }
    for (auto &target : user_targets()) {
        SCOPED_TRACE("target " + target);
        Func f = define();
        const std::string text = schedule_with_solder({f}, target);
        Pipeline pl = compiled({f}, target);
        gain.set(0.75f);
        for (const std::vector<int> &sz : walk_sizes()) {
            SCOPED_TRACE(std::to_string(sz[0]) + "x" + std::to_string(sz[1]));
            auto a = random_buffer<float>(sz, 9, -1, 1);
            in.set(a);
            Buffer<float> o = realize_on<float>(pl, sz, target);
            const int W = sz[0], H = sz[1];
            std::vector<float> want(size_t(W) * size_t(H));
            for (int i = 0; i < W; i++) {
                float v = a(i, 0);
                want[size_t(i)] = v;
                for (int j = 1; j < H; j++) want[size_t(j) * size_t(W) + size_t(i)] = v = 0.75f * v + 0.25f * a(i, j);
            }
            EXPECT_TRUE(matches(
                o, [&](auto &q) { return want[size_t(q[1]) * size_t(W) + size_t(q[0])]; }, 1e-5))
                << text;
        }
    }
}

// A recurrence whose points read their left neighbour in the same step (a running sum along each
// row that also adds the row above): neither form holds, and one thread walks the RDom in order.
TEST(RDomWalks, APointThatReadsItsOwnStepStaysOnOneThread) {
    ImageParam in(Float(32), 2, "run_in");
    auto define = [&] {
        Var x("x"), y("y");
        Func f("f");
        f(x, y) = in(x, y);
        RDom r(1, in.dim(0).extent() - 1, 1, in.dim(1).extent() - 1, "r");
        f(r.x, r.y) = f(r.x - 1, r.y) + f(r.x, r.y - 1) * 0.5f;
        f.set_estimates({{0, 512}, {0, 512}});
        return f;
    };
    in.set_estimates({{0, 512}, {0, 512}});
    {
        Func f = define();
        EXPECT_FALSE(solder::autosched::innermost_rvar_parallel_per_step(f.function(), 0));
        EXPECT_FALSE(solder::autosched::innermost_rvar_independent(f.function(), 0));
        Plan plan = plan_for({f}, {}, true);
        const auto *k = kernel_rooted_at(plan, "f");
        ASSERT_NE(k, nullptr) << plan.to_text();
        const GenericParams &p = params_of<GenericParams>(*k, "generic");
        EXPECT_EQ(p.stage_step_threads[1], 0) << plan.to_text();
        EXPECT_EQ(p.stage_walk_threads[1], 0) << plan.to_text();
    }
    for (auto &target : user_targets()) {
        SCOPED_TRACE("target " + target);
        Func f = define();
        const std::string text = schedule_with_solder({f}, target);
        Pipeline pl = compiled({f}, target);
        for (const std::vector<int> &sz : {std::vector<int>{37, 29}, {3, 2}, {1, 1}}) {
            SCOPED_TRACE(std::to_string(sz[0]) + "x" + std::to_string(sz[1]));
            auto a = random_buffer<float>(sz, 3, -1, 1);
            in.set(a);
            Buffer<float> o = realize_on<float>(pl, sz, target);
            const int W = sz[0], H = sz[1];
            std::vector<float> want(size_t(W) * size_t(H));
            for (int j = 0; j < H; j++)
                for (int i = 0; i < W; i++) want[size_t(j) * size_t(W) + size_t(i)] = a(i, j);
            for (int j = 1; j < H; j++)
                for (int i = 1; i < W; i++)
                    want[size_t(j) * size_t(W) + size_t(i)] = want[size_t(j) * size_t(W) + size_t(i - 1)] +
                                                              want[size_t(j - 1) * size_t(W) + size_t(i)] * 0.5f;
            EXPECT_TRUE(matches(
                o, [&](auto &q) { return want[size_t(q[1]) * size_t(W) + size_t(q[0])]; }, 1e-5))
                << text;
        }
    }
}

// Votes of each pixel for 45 "angles" (r.z), each into one of 256 bins computed from the pixel and
// the angle (integer arithmetic, so that every target counts alike; 45 KB of bins, too many for
// each chunk's shared memory): the angle, which the store takes as it is, walks along the threads,
// not the pixels (whose votes at one angle mostly meet in a few bins); and the blocks resident at
// once are taken from all over the RDom, a prime number of blocks apart.
TEST(RDomWalks, AScatterTakesTheRVarItsStoreNamesAlongTheThreads) {
    ImageParam in(UInt(8), 2, "votes_in");
    auto define = [&] {
        Var a("a"), b("b");
        Func votes("votes");
        RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), 0, 45, "r");
        r.where(in(r.x, r.y) > 100);
        votes(a, b) = 0;
        votes(r.z, (r.x * (r.z % 7) + r.y * (r.z / 7) + r.z) % 256) += 1;
        votes.set_estimates({{0, 45}, {0, 256}});
        return votes;
    };
    in.set_estimates({{0, 1024}, {0, 1024}});
    {
        Func votes = define();
        const std::string text = schedule_with_solder({votes}, "cuda");
        EXPECT_NE(text.find(".atomic()"), std::string::npos) << text;
        EXPECT_NE(text.find("votes.update(0).reorder(r_z, r_x, r_y)"), std::string::npos) << text;
        // Its 1024 x 1024 x 45 points at the estimates take 184320 blocks: 127 apart along grid x
        // (the largest prime stride at most 184320 / 1024), tried at the sizes below too.
        EXPECT_NE(text.find("stage 1's blocks 127 apart along grid x"), std::string::npos) << text;
    }
    for (auto &target : user_targets()) {
        SCOPED_TRACE("target " + target);
        Func votes = define();
        const std::string text = schedule_with_solder({votes}, target);
        Pipeline pl = compiled({votes}, target);
        for (const std::vector<int> &sz : {std::vector<int>{37, 29}, {300, 5}, {1, 1}}) {
            SCOPED_TRACE(std::to_string(sz[0]) + "x" + std::to_string(sz[1]));
            auto px = random_buffer<uint8_t>(sz, 13, 0, 256);
            in.set(px);
            Buffer<int> o = realize_on<int>(pl, {45, 256}, target);
            std::vector<int> want(45 * 256, 0);
            for (int z = 0; z < 45; z++)
                for (int j = 0; j < sz[1]; j++)
                    for (int i = 0; i < sz[0]; i++)
                        if (px(i, j) > 100) want[size_t(z + 45 * ((i * (z % 7) + j * (z / 7) + z) % 256))]++;
            EXPECT_TRUE(matches(
                o, [&](auto &q) { return want[size_t(q[0] + 45 * q[1])]; }, 0))
                << text;
        }
    }
}
