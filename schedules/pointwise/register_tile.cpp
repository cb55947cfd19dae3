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

// A window a thread can reduce for its rows in registers: one update in place over an RDom of
// constant extents, 2 to kMaxRegisterTileSteps steps, no predicate, two dims or more.
bool small_window(const FuncNode &M) {
    const int64_t steps = constant_steps(M.function);
    return !M.is_input && M.is_reduction() && M.dims.size() >= 2 && steps >= 2 && steps <= kMaxRegisterTileSteps &&
           reduces_per_point(M.function);
}

// A root over at least a tile of 32 x (8 x the rows per thread) points at the estimates.
bool spans_a_tile(const FuncNode &O) {
    return O.dims.size() >= 2 && O.region.size() >= 2 && O.region[0].extent() >= kPointwiseTileX &&
           O.region[1].extent() >= kPointwiseTileY * kRegisterTileRows;
}

}  // namespace

bool register_tile_root(const FuncGraph &g, int root) {
    const FuncNode &O = g.nodes[size_t(root)];
    return O.is_output && !has_specializations(O.function) && spans_a_tile(O) && small_window(O) && O.updates == 1;
}

std::vector<std::string> register_tile_members(const FuncGraph &g, int root, const std::vector<int> &members,
                                               const std::function<bool(int)> &only_here) {
    const FuncNode &O = g.nodes[size_t(root)];
    if (O.updates > 0 || !O.function.has_pure_definition() || has_specializations(O.function) || !spans_a_tile(O))
        return {};
    std::vector<bool> inside(g.nodes.size(), false);
    for (int m : members) inside[size_t(m)] = true;
    inside[size_t(root)] = true;
    std::vector<std::string> picked;
    for (int m : members) {
        const FuncNode &M = g.nodes[size_t(m)];
        if (m == root || !small_window(M) || !only_here(m)) continue;
        // Read in the kernel only at the root's own points: by the root, or through pure Funcs
        // inlined into it that are so read (`out = vsum / wsum`, each a window's sum).
        std::function<bool(int)> at_root_points = [&](int n) {
            if (n == root) return true;
            if (g.nodes[size_t(n)].is_reduction() || g.nodes[size_t(n)].dims.size() != O.dims.size()) return false;
            bool any = false;
            for (int e : g.nodes[size_t(n)].out_edges) {
                const FuncEdge &E = g.edges[size_t(e)];
                if (!inside[size_t(E.consumer)]) continue;
                if (E.access != Access::Pointwise || !at_root_points(E.consumer)) return false;
                any = true;
            }
            return any;
        };
        bool read = false, elsewhere = false;
        for (int e : M.out_edges) {
            const FuncEdge &E = g.edges[size_t(e)];
            if (!inside[size_t(E.consumer)]) continue;
            read = true;
            if (E.access != Access::Pointwise || !at_root_points(E.consumer)) elsewhere = true;
        }
        if (M.dims.size() == O.dims.size() && read && !elsewhere) picked.push_back(M.name);
    }
    return picked;
}

}  // namespace autosched

namespace {

// Stage `s` of `root` over 32 x 8 threads, each `rows` consecutive rows of dim 1 (innermost,
// unrolled), tails guarded, the other dims as block dims. Returns the thread loop along x.
Var lay_out_rows(ScheduleWriter &w, const StageRef &s, int rows) {
    std::vector<VarOrRVar> pure = stage_pure_vars(s.func.function(), s.update + 1);
    const std::string tag = s.func.name();
    Var bx(tag + "_bx"), tx(tag + "_tx"), yq(tag + "_yq"), yr(tag + "_yr"), by(tag + "_by"), ty(tag + "_ty");
    w.split(s, pure[1], yq, yr, rows, TailStrategy::GuardWithIf);
    w.split(s, pure[0], bx, tx, kPointwiseTileX, TailStrategy::GuardWithIf);
    w.split(s, yq, by, ty, kPointwiseTileY, TailStrategy::GuardWithIf);
    std::vector<VarOrRVar> order{yr, tx, ty, bx, by}, blocks{bx, by};
    for (size_t d = 2; d < pure.size(); d++) order.push_back(pure[d]), blocks.push_back(pure[d]);
    w.reorder(s, order);
    w.gpu_threads(s, tx, ty);
    gpu_blocks_over(w, s, blocks, tag, 2);
    w.unroll(s, yr);
    return tx;
}

// `m` computed per thread of `root` (at `tx`) for the thread's `rows` rows: its update with the
// rows innermost, then its RVars, every loop unrolled, its storage a constant rows x 1 x ... (in
// registers; sized by its region, which the guarded rows make `min(rows, the output's rows)`,
// Halide allocated it in global memory: 52 against 42.6 us on the H100). Plain unrolls: the rows'
// loop has at most `rows` points, which Halide finds (split by `rows` under a guard, the kernel took
// 203 us).
void window_per_thread(ScheduleWriter &w, Func m, Func root, const Var &tx, int rows) {
    w.compute_at(m, root, tx);
    const Internal::Function fn = m.function();
    w.unroll({m}, stage_pure_vars(fn, 0)[1]);
    const std::vector<std::string> &args = fn.args();
    for (size_t d = 0; d < args.size(); d++) w.bound_storage(m, Var(args[d]), d == 1 ? rows : 1);
    std::vector<VarOrRVar> mu = stage_pure_vars(fn, 1), order{mu[1]};
    const auto &rvars = fn.update(0).schedule().rvars();
    for (const auto &rv : rvars) order.push_back(RVar(rv.var));
    order.push_back(mu[0]);
    for (size_t d = 2; d < mu.size(); d++) order.push_back(mu[d]);
    w.reorder({m, 0}, order);
    w.unroll({m, 0}, mu[1]);
    for (const auto &rv : rvars) w.unroll({m, 0}, RVar(rv.var));
}

}  // namespace

void schedule_register_tile(ScheduleWriter &w, Func root, const std::vector<Func> &members, int rows) {
    w.compute_root(root);
    const Var tx = lay_out_rows(w, {root}, rows);
    for (Func m : members) window_per_thread(w, m, root, tx, rows);
}

void schedule_register_tile_root(ScheduleWriter &w, Func root, int rows) {
    w.compute_root(root);
    Func window = w.rfactor({root, 0}, {});
    lay_out_rows(w, {root}, rows);
    const Var tx = lay_out_rows(w, {root, 0}, rows);
    window_per_thread(w, window, root, tx, rows);
}

}  // namespace solder
