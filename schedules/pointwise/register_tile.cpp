#include "schedules/pointwise/register_tile.h"

#include "autosched/model/generic_reason.h"
#include "autosched/model/pipeline_funcs.h"
#include "schedules/pointwise/pointwise_schedule.h"

namespace solder {
using namespace Halide;

namespace autosched {

namespace {

// The constant extents of `f`'s one update's RVars and their product, or 0 where some extent is
// not a constant or the update has a predicate.
int64_t constant_steps(const Internal::Function &f) {
    if (f.updates().size() != 1) return 0;
    const Internal::Definition &u = f.update(0);
    if (u.predicate().defined() && !Internal::is_const_one(u.predicate())) return 0;
    int64_t steps = 1;
    for (const auto &rv : u.schedule().rvars()) {
        auto e = Internal::as_const_int(rv.extent);
        if (!e || *e < 1) return 0;
        steps *= *e;
    }
    return u.schedule().rvars().empty() ? 0 : steps;
}

}  // namespace

std::vector<std::string> register_tile_members(const FuncGraph &g, int root, const std::vector<int> &members,
                                               const std::function<bool(int)> &only_here) {
    const FuncNode &O = g.nodes[size_t(root)];
    if (O.updates > 0 || !O.function.has_pure_definition() || has_specializations(O.function) ||
        O.dims.size() < 2 || O.region.size() < 2)
        return {};
    if (O.region[0].extent() < kPointwiseTileX || O.region[1].extent() < kPointwiseTileY * kRegisterTileRows) return {};
    std::vector<bool> inside(g.nodes.size(), false);
    for (int m : members) inside[size_t(m)] = true;
    inside[size_t(root)] = true;
    std::vector<std::string> picked;
    for (int m : members) {
        const FuncNode &M = g.nodes[size_t(m)];
        if (m == root || M.is_input || !M.is_reduction() || M.dims.size() < 2 || !only_here(m)) continue;
        const int64_t steps = constant_steps(M.function);
        if (steps < 2 || steps > kMaxRegisterTileSteps || !reduces_per_point(M.function)) continue;
        // Read by the root alone in the kernel, at its own points.
        bool direct = false, others = false;
        for (int e : M.out_edges) {
            const FuncEdge &E = g.edges[size_t(e)];
            if (!inside[size_t(E.consumer)]) continue;
            if (E.consumer == root && E.access == Access::Pointwise && M.dims.size() == O.dims.size())
                direct = true;
            else
                others = true;
        }
        if (direct && !others) picked.push_back(M.name);
    }
    return picked;
}

}  // namespace autosched

void schedule_register_tile(ScheduleWriter &w, Func root, const std::vector<Func> &members, int rows) {
    w.compute_root(root);
    std::vector<VarOrRVar> pure = stage_pure_vars(root.function(), 0);
    const std::string tag = root.name();
    Var bx(tag + "_bx"), tx(tag + "_tx"), yq(tag + "_yq"), yr(tag + "_yr"), by(tag + "_by"), ty(tag + "_ty");
    w.split({root}, pure[1], yq, yr, rows, TailStrategy::GuardWithIf);
    w.split({root}, pure[0], bx, tx, kPointwiseTileX, TailStrategy::GuardWithIf);
    w.split({root}, yq, by, ty, kPointwiseTileY, TailStrategy::GuardWithIf);
    std::vector<VarOrRVar> order{yr, tx, ty, bx, by}, blocks{bx, by};
    for (size_t d = 2; d < pure.size(); d++) order.push_back(pure[d]), blocks.push_back(pure[d]);
    w.reorder({root}, order);
    w.gpu_threads({root}, tx, ty);
    gpu_blocks_over(w, {root}, blocks, tag, 2);
    w.unroll({root}, yr);
    for (Func m : members) {
        w.compute_at(m, root, tx);
        const Internal::Function fn = m.function();
        std::vector<VarOrRVar> mp = stage_pure_vars(fn, 0);
        // (Plain unrolls: the rows' loop has at most `rows` points, which Halide finds; split by
        // `rows` under a guard instead, the kernel took 203 us against 52 on the H100.)
        w.unroll({m}, mp[1]);
        // Its storage a constant `rows` x 1 x ...: in registers. (Sized by its region, which the
        // guarded rows make `min(rows, the output's rows)`, Halide allocated it in global memory.)
        const std::vector<std::string> &args = fn.args();
        for (size_t d = 0; d < args.size(); d++) w.bound_storage(m, Var(args[d]), d == 1 ? rows : 1);
        std::vector<VarOrRVar> mu = stage_pure_vars(fn, 1), uorder{mu[1]};
        const auto &rvars = fn.update(0).schedule().rvars();
        for (const auto &rv : rvars) uorder.push_back(RVar(rv.var));
        uorder.push_back(mu[0]);
        for (size_t d = 2; d < mu.size(); d++) uorder.push_back(mu[d]);
        w.reorder({m, 0}, uorder);
        w.unroll({m, 0}, mu[1]);
        for (const auto &rv : rvars) w.unroll({m, 0}, RVar(rv.var));
    }
}

}  // namespace solder
