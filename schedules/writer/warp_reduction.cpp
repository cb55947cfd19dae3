#include "schedules/writer/warp_reduction.h"

#include <string>
#include <vector>

#include "schedules/writer/reduction_walk.h"

namespace solder {
using namespace Halide;

Func warp_shuffle_reduction(ScheduleWriter &w, Func f, Func root, const Var &at, int warps, int vector) {
    const std::string tag = f.name();
    auto first_rvar = [&] { return f.function().update(0).schedule().rvars()[0]; };
    const Expr extent = first_rvar().extent;
    // Pure vars of the partials: the lane, the lane's vector slot, the warp.
    Var u(tag + "_wlane"), v(tag + "_wvec"), wv(tag + "_warp");
    RVar r(first_rvar().var), walk(tag + "_walk"), rt(tag + "_rt"), rwarp(tag + "_rwarp"), rl(tag + "_rl"),
        rlane(tag + "_rlane"), rv(tag + "_rv");
    // Point i of the row goes to step i / (32 x warps x vector) of the walk, warp, lane and slot in
    // that order: each step, the block's accesses cover one contiguous stretch.
    w.split({f, 0}, r, walk, rt, 32 * warps * vector, TailStrategy::GuardWithIf);
    w.split({f, 0}, rt, rwarp, rl, 32 * vector, TailStrategy::GuardWithIf);
    w.split({f, 0}, rl, rlane, rv, vector, TailStrategy::GuardWithIf);
    Func walked = w.rfactor({f, 0}, {{rlane, u}, {rv, v}, {rwarp, wv}});     // each slot's sum over the walk
    std::vector<Func> levels{w.rfactor({f, 0}, {{rlane, u}, {rwarp, wv}})};  // each lane's slots added
    for (int n = 32; n > 2; n /= 2) {
        RVar cur(first_rvar().var), hi(tag + "_t" + std::to_string(n) + "o"), lo(tag + "_t" + std::to_string(n) + "i");
        w.split({f, 0}, cur, hi, lo, n / 2, TailStrategy::GuardWithIf);
        levels.push_back(w.rfactor({f, 0}, {{lo, u}, {rwarp, wv}}));  // lane u adds lane u + n/2
    }
    // The last level (2 lanes per warp) is stored per block, in shared memory; `f` adds its values.
    Func last = levels.back();
    w.compute_at(last, root, at);
    auto lanes_of_warps = [&](const StageRef &s, const std::vector<VarOrRVar> &inner) {
        std::vector<VarOrRVar> order = inner;
        order.push_back(u);
        order.push_back(wv);
        w.reorder(s, order);
        w.gpu_threads(s, wv);
        w.gpu_lanes(s, u);
    };
    auto own_rvar = [](const Func &g) { return RVar(g.function().update(0).schedule().rvars()[0].var); };
    lanes_of_warps({last}, {});
    lanes_of_warps({last, 0}, {own_rvar(last)});
    w.unroll({last, 0}, own_rvar(last), 2, TailStrategy::GuardWithIf);
    // Everything before it lives in each warp's registers (computed inside the warp's thread loop).
    w.compute_at(walked, last, wv);
    std::vector<VarOrRVar> slot;
    if (vector > 1) slot.push_back(v);
    auto walked_order = slot;
    walked_order.push_back(u);
    w.reorder({walked}, walked_order);
    if (vector > 1) w.vectorize({walked}, v, vector, TailStrategy::GuardWithIf);
    w.gpu_lanes({walked}, u);
    auto walk_order = slot;
    walk_order.push_back(walk);
    walk_order.push_back(u);
    w.reorder({walked, 0}, walk_order);
    if (vector > 1) w.vectorize({walked, 0}, v, vector, TailStrategy::GuardWithIf);
    unroll_walk(w, {walked, 0}, walk, Internal::simplify(extent / (32 * warps * vector)));
    w.gpu_lanes({walked, 0}, u);
    for (size_t i = 0; i + 1 < levels.size(); i++) {
        Func c = levels[i];
        w.compute_at(c, last, wv);
        w.gpu_lanes({c}, u);
        RVar k = own_rvar(c);
        w.reorder({c, 0}, {k, u});
        const int k_extent = i == 0 ? vector : 2;
        if (k_extent > 1) w.unroll({c, 0}, k, k_extent, TailStrategy::GuardWithIf);
        w.gpu_lanes({c, 0}, u);
    }
    return last;
}

}  // namespace solder
