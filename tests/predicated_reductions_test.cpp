// Reductions over an RDom with a predicate (RDom::where) as kernel roots: a causal row sum (the
// predicate names the result's own coordinate), a masked row sum and a masked image total (the
// predicate loads a mask). On a GPU the block and total reduction templates take them, the
// predicate evaluated at each point of each lane's walk (autosched/model/generic_reason.h:
// predicated_reduction); before, each result ran in one thread of the generic template. Planned at
// one size, run at others on the host and OpenCL against plain C++.
#include <gtest/gtest.h>

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
    EXPECT_NE(plan.find("k0_decay [generic"), std::string::npos) << plan;
}
