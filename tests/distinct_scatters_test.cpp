// Scatters whose RDom's points each write a point of their own (autosched::distinct_points_update):
// plain stores, not reductions, so no atomics apply; each point's arg `s * r + e` with `e` spanning
// less than `|s|` proves the points apart, and the generic template runs them all at once. Stores
// that may meet keep Halide's order, in one thread.
#include <gtest/gtest.h>

#include "autosched/model/generic_reason.h"
#include "tests/support/user_pipeline.h"

using namespace Halide;
using namespace solder::testing;

namespace {

// Whether the schedule runs some stage in one GPU thread, and whether it lets an update's points
// race.
bool single_thread(const std::string &text) { return text.find("gpu_single_thread") != std::string::npos; }
bool races_allowed(const std::string &text) { return text.find("allow_race_conditions") != std::string::npos; }

}  // namespace

// Which updates the proof takes: each RVar needs an arg that separates its points.
TEST(DistinctScatters, EachRVarNeedsAnArgThatSeparatesItsPoints) {
    ImageParam idx(Int(32), 1, "ds_idx"), v(Float(32), 1, "ds_v");
    Var x("x");
    auto first_update_distinct = [](Func f) { return solder::autosched::distinct_points_update(f.function(), 0); };
    {
        Func f("ds_block");  // r.x fills 4 slots: r.x + 4 r.y is one point each
        RDom r(0, 4, 0, v.dim(0).extent(), "r");
        f(x) = 0.0f;
        f(r.x + 4 * r.y) = v(r.y);
        EXPECT_TRUE(first_update_distinct(f));
    }
    {
        Func f("ds_overlap");  // 5 slots in steps of 4: r.x = 4 of one meets r.x = 0 of the next
        RDom r(0, 5, 0, v.dim(0).extent(), "r");
        f(x) = 0.0f;
        f(r.x + 4 * r.y) = v(r.y);
        EXPECT_FALSE(first_update_distinct(f));
    }
    {
        Func f("ds_offset");  // an offset in [0, 1] from a load, in steps of 2
        RDom r(0, v.dim(0).extent(), "r");
        f(x) = 0.0f;
        f(2 * r + clamp(idx(r), 0, 1)) = v(r);
        EXPECT_TRUE(first_update_distinct(f));
    }
    {
        Func f("ds_wide");  // an offset in [0, 2] in steps of 2 may meet the next point's
        RDom r(0, v.dim(0).extent(), "r");
        f(x) = 0.0f;
        f(2 * r + clamp(idx(r), 0, 2)) = v(r);
        EXPECT_FALSE(first_update_distinct(f));
    }
    {
        Func f("ds_perm");  // a loaded index: nothing bounds where two points write
        RDom r(0, v.dim(0).extent(), "r");
        f(x) = 0.0f;
        f(clamp(idx(r), 0, 63)) = v(r);
        EXPECT_FALSE(first_update_distinct(f));
    }
    {
        Func f("ds_half");  // r / 2: two points each
        RDom r(0, v.dim(0).extent(), "r");
        f(x) = 0.0f;
        f(r / 2) = v(r);
        EXPECT_FALSE(first_update_distinct(f));
    }
    {
        Func f("ds_self");  // it reads the Func: a point's value may wait on another's store
        RDom r(1, v.dim(0).extent() - 1, "r");
        f(x) = 0.0f;
        f(r) = f(r - 1) + v(r);
        EXPECT_FALSE(first_update_distinct(f));
    }
}

// Max-unpooling as users write it: a 2 x 2 max-pool's values written back into a zeroed image at
// the offsets their indices give. On a GPU a thread per pooled value (it had been one thread for
// all of them: 4 million stores in a row at the estimates); right at sizes other than the estimates.
TEST(DistinctScatters, MaxUnpoolingRunsEveryPointAtOnce) {
    for (const std::string &target : user_targets()) {
        SCOPED_TRACE("target " + target);
        ImageParam pooled(Float(32), 3, "up_pooled"), idx(Int(32), 3, "up_idx");
        Var x("x"), y("y"), c("c");
        Func out("unpooled");
        out(x, y, c) = 0.0f;
        RDom r(0, pooled.dim(0).extent(), 0, pooled.dim(1).extent(), 0, pooled.dim(2).extent(), "r");
        Expr o = clamp(idx(r.x, r.y, r.z), 0, 3);
        out(r.x * 2 + o % 2, r.y * 2 + o / 2, r.z) = pooled(r.x, r.y, r.z);
        pooled.set_estimates({{0, 256}, {0, 256}, {0, 64}});
        idx.set_estimates({{0, 256}, {0, 256}, {0, 64}});
        out.set_estimates({{0, 512}, {0, 512}, {0, 64}});
        const std::string text = schedule_with_solder({out}, target);
        if (target != "host") {
            EXPECT_TRUE(races_allowed(text)) << text;
            EXPECT_FALSE(single_thread(text)) << text;
        }
        Pipeline p = compiled({out}, target);
        for (auto [w, h] : std::vector<std::pair<int, int>>{{64, 48}, {37, 29}, {1, 1}}) {
            for (int ch : {3, 1}) {
                SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + "x" + std::to_string(ch));
                auto pv = random_buffer<float>({w, h, ch}, 11, 1, 2);
                auto iv = random_buffer<int32_t>({w, h, ch}, 12, -1, 5);  // some out of [0, 3]: clamped
                pooled.set(pv);
                idx.set(iv);
                Buffer<float> got = realize_on<float>(p, {2 * w, 2 * h, ch}, target);
                EXPECT_TRUE(matches(
                    got,
                    [&](auto &q) {
                        const int px = q[0] / 2, py = q[1] / 2, k = std::clamp(iv(px, py, q[2]), 0, 3);
                        return (q[0] == 2 * px + k % 2 && q[1] == 2 * py + k / 2) ? pv(px, py, q[2]) : 0.0f;
                    },
                    0))
                    << text;
            }
        }
    }
}

// Stores that two points may make to one place keep Halide's order (the later point's value):
// in one thread, on every target.
TEST(DistinctScatters, StoresThatMayMeetKeepTheirOrder) {
    for (const std::string &target : user_targets()) {
        SCOPED_TRACE("target " + target);
        ImageParam v(Float(32), 1, "sm_v");
        Var x("x");
        Func out("halves");
        RDom r(0, v.dim(0).extent(), "r");
        out(x) = -1.0f;
        out(r / 2) = v(r);
        v.set_estimates({{0, 1 << 20}});
        out.set_estimates({{0, 1 << 19}});
        const std::string text = schedule_with_solder({out}, target);
        EXPECT_FALSE(races_allowed(text)) << text;
        Pipeline p = compiled({out}, target);
        for (int n : {4096, 517, 2}) {
            SCOPED_TRACE(n);
            auto a = random_buffer<float>({n}, 13);
            v.set(a);
            Buffer<float> got = realize_on<float>(p, {n / 2}, target);
            EXPECT_TRUE(matches(
                got, [&](auto &q) { return a(2 * q[0] + 1); }, 0))
                << text;
        }
    }
}
