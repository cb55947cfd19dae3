#include "schedules/pointwise/transposed_tile.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include "autosched/model/pipeline_funcs.h"

namespace solder {
using namespace Halide;

namespace autosched {

namespace {

// Largest constant offset of a transposed read's index from the root var it follows (a stencil
// across the transposed rows: in(y - 1, x), in(y + 1, x)); the tile's copy grows by as much.
constexpr int64_t kMaxOffset = 2;

// `e` without the clamp a boundary condition puts around an index (max(min(likely(x), hi), lo):
// BoundaryConditions::repeat_edge) and without `likely`: bounds that name none of `vars`.
Expr unclamped(Expr e, const std::vector<std::string> &vars) {
    auto names_none = [&](const Expr &b) {
        for (auto &v : vars)
            if (Internal::expr_uses_var(b, v)) return false;
        return true;
    };
    while (true) {
        if (const auto *mx = e.as<Internal::Max>(); mx && names_none(mx->b)) {
            e = mx->a;
        } else if (const auto *mn = e.as<Internal::Min>(); mn && names_none(mn->b)) {
            e = mn->a;
        } else if (const auto *tag = Internal::Call::as_tag(e)) {  // likely, likely_if_innermost
            e = tag->args[0];
        } else {
            return e;
        }
    }
}

// The index i of `vars` such that `e` (unclamped) is vars[i] plus a constant of at most
// kMaxOffset, -1 none.
int var_plus_constant(const Expr &clamped, const std::vector<std::string> &vars) {
    const Expr e = unclamped(clamped, vars);
    for (int i = 0; i < int(vars.size()); i++) {
        if (!Internal::expr_uses_var(e, vars[size_t(i)])) continue;
        const Expr rest = Internal::simplify(e - Internal::Variable::make(Int(32), vars[size_t(i)]));
        const auto c = Internal::as_const_int(rest);
        return c && std::abs(*c) <= kMaxOffset ? i : -1;
    }
    return -1;
}

// Every call to a Func in the expressions, by the graph's name of the callee (an input's name for
// its wrapper Func): their args. (Not direct image calls: the schedule stages a Func's copy.)
struct CallArgs : Internal::IRGraphVisitor {
    std::map<std::string, std::vector<std::vector<Expr>>> calls;
    using Internal::IRGraphVisitor::visit;
    void visit(const Internal::Call *op) override {
        Internal::IRGraphVisitor::visit(op);
        if (op->call_type != Internal::Call::Halide || !op->func.defined()) return;
        const Internal::Function f(op->func);
        const auto *image = is_input_wrapper(f) ? f.definition().values()[0].as<Internal::Call>() : nullptr;
        calls[image ? image->param.name() : op->name].push_back(op->args);
    }
};

// The index i of `vars` such that `e` (unclamped) is vars[i] plus a constant of at most kMaxOffset
// (var_plus_constant), or an offset naming none of `vars` less vars[i] (a flip: a rotation's
// `extent - 1 - x`, whose tile is as wide as the var's), -1 none.
int var_shifted_or_flipped(const Expr &clamped, const std::vector<std::string> &vars) {
    if (const int i = var_plus_constant(clamped, vars); i >= 0) return i;
    const Expr e = unclamped(clamped, vars);
    for (int i = 0; i < int(vars.size()); i++) {
        if (!Internal::expr_uses_var(e, vars[size_t(i)])) continue;
        const Expr rest = Internal::simplify(e + Internal::Variable::make(Int(32), vars[size_t(i)]));
        for (auto &v : vars)
            if (Internal::expr_uses_var(rest, v)) return -1;
        return i;
    }
    return -1;
}

// The (root dim, producer dim) pair of one call as transposed_read describes it, {-1, -1} if not.
std::pair<int, int> transposition(const std::vector<Expr> &args, const std::vector<std::string> &vars) {
    if (args.size() < 2) return {-1, -1};
    const int root_dim = var_shifted_or_flipped(args[0], vars);
    if (root_dim < 1) return {-1, -1};
    int source_dim = -1;
    for (int k = 1; k < int(args.size()); k++) {
        const bool inner = Internal::expr_uses_var(args[size_t(k)], vars[0]);
        if (Internal::expr_uses_var(args[size_t(k)], vars[size_t(root_dim)])) return {-1, -1};
        if (!inner) continue;
        if (source_dim >= 0 || var_shifted_or_flipped(args[size_t(k)], vars) != 0) return {-1, -1};
        source_dim = k;
    }
    return source_dim < 0 ? std::pair<int, int>{-1, -1} : std::pair<int, int>{root_dim, source_dim};
}

// Calls of `funcs` (pure, one value) replaced by their values at the call's args, recursively.
// A chain of stencils inlined into one another grows as the product of their taps: past `budget`
// calls replaced, the analysis gives up (budget < 0).
struct InlineMembers : Internal::IRMutator {
    std::map<std::string, Internal::Function> funcs;
    int budget = 4096;
    using Internal::IRMutator::visit;
    Expr visit(const Internal::Call *op) override {
        Expr e = Internal::IRMutator::visit(op);
        const auto *call = e.as<Internal::Call>();
        if (!call || call->call_type != Internal::Call::Halide || budget < 0) return e;
        auto it = funcs.find(call->name);
        if (it == funcs.end()) return e;
        if (--budget < 0) return e;
        std::map<std::string, Expr> args;
        for (size_t i = 0; i < call->args.size(); i++) args[it->second.args()[i]] = call->args[i];
        return mutate(Internal::substitute(args, it->second.definition().values()[0]));
    }
};

}  // namespace

std::optional<TransposedRead> transposed_read(const FuncGraph &g, int root, const std::vector<int> &members,
                                              const std::function<bool(int)> &only_here) {
    const FuncNode &O = g.nodes[size_t(root)];
    if (O.is_input || O.updates > 0 || O.dims.size() < 2 || O.region.size() < 2 || has_specializations(O.function) ||
        O.region[0].extent() < kTransposeTile)
        return std::nullopt;
    // The root's values with the Funcs inlined into it substituted (a boundary condition, a cast),
    // so that every call they make is in the root's vars. Not through a Func with updates or a
    // Tuple, or one another kernel computes too (the copy replaces its calls everywhere).
    std::vector<Expr> values = O.function.definition().values();
    std::set<int> inlinable;
    for (int m : members) {
        const FuncNode &M = g.nodes[size_t(m)];
        if (!M.is_input && M.updates == 0 && M.function.outputs() == 1 && !has_specializations(M.function) &&
            only_here(m))
            inlinable.insert(m);
    }
    InlineMembers inliner;
    for (int m : inlinable) inliner.funcs.emplace(g.nodes[size_t(m)].name, g.nodes[size_t(m)].function);
    for (Expr &e : values) e = inliner.mutate(e);
    if (inliner.budget < 0) return std::nullopt;
    const std::vector<std::string> vars = O.function.args();
    CallArgs reads;
    for (const Expr &e : values) e.accept(&reads);
    std::optional<TransposedRead> best;
    for (auto &[name, calls] : reads.calls) {
        const int p = g.find(name);
        if (p < 0 || p == root || std::find(members.begin(), members.end(), p) != members.end()) continue;
        const FuncNode &P = g.nodes[size_t(p)];
        if (P.elem_bytes > 8 || P.dims.size() < 2) continue;
        // The Funcs of the kernel that call the producer: each must be the root or inlined above.
        TransposedRead t;
        t.producer = p;
        for (int e : O.in_edges)
            if (g.edges[size_t(e)].producer == p) t.readers = {O.name};
        bool readers_known = true;
        for (int m : members)
            for (int e : g.nodes[size_t(m)].in_edges)
                if (g.edges[size_t(e)].producer == p) {
                    readers_known &= inlinable.count(m) > 0;
                    t.readers.push_back(g.nodes[size_t(m)].name);
                }
        if (!readers_known) continue;
        // Every call alike, or in place beside the transposed ones.
        std::pair<int, int> how{-1, -1};
        bool in_place = false;
        for (auto &args : calls) {
            const std::pair<int, int> this_call = transposition(args, vars);
            if (this_call.first < 0 && !args.empty() && var_plus_constant(args[0], vars) == 0) {
                in_place = true;
            } else if (this_call.first < 0 || (how.first >= 0 && this_call != how)) {
                how = {-2, -2};
                break;
            } else {
                how = this_call;
            }
        }
        t.staged = !in_place;
        if (how.first < 0 || O.region[size_t(how.first)].extent() < kTransposeTile) continue;
        t.root_dim = how.first;
        t.source_dim = how.second;
        if (!best || P.bytes() > g.nodes[size_t(best->producer)].bytes()) best = t;
    }
    return best;
}

}  // namespace autosched

namespace {

// Stage `s` in square tiles of `tile` points over its dims 0 and `other`: `tile` x `threads_y`
// threads, each looping tile / threads_y points of `other` (unrolled), tails guarded; its loops
// named after `tag`. Returns the tile counts (dim 0's, then `other`'s) and the remaining dims,
// innermost first, all outside the threads.
std::vector<VarOrRVar> square_tiles(ScheduleWriter &w, const StageRef &s, int other, const std::string &tag,
                                    int tile = kTransposeTile, int threads_y = kTransposeThreadsY) {
    std::vector<VarOrRVar> dims = stage_pure_vars(s.func.function(), 0);
    Var bx(tag + "_bx"), by(tag + "_by"), tx(tag + "_tx"), yi(tag + "_yi"), ty(tag + "_ty"), yr(tag + "_yr");
    w.split(s, dims[0], bx, tx, tile, TailStrategy::GuardWithIf);
    w.split(s, dims[size_t(other)], by, yi, tile, TailStrategy::GuardWithIf);
    w.split(s, yi, yr, ty, threads_y, TailStrategy::GuardWithIf);
    std::vector<VarOrRVar> outer{bx, by};
    for (int d = 1; d < int(dims.size()); d++)
        if (d != other) outer.push_back(dims[size_t(d)]);
    std::vector<VarOrRVar> order{yr, tx, ty};
    order.insert(order.end(), outer.begin(), outer.end());
    w.reorder(s, order);
    w.gpu_threads(s, tx, ty);
    w.unroll(s, yr);
    return outer;
}

}  // namespace

void schedule_transposed_tile(ScheduleWriter &w, Func root, Func source, const std::vector<Func> &readers, int root_dim,
                              int source_dim, bool staged) {
    w.compute_root(root);
    const std::vector<VarOrRVar> blocks =
        square_tiles(w, {root}, root_dim, root.name(), transpose_tile(staged), transpose_threads_y(staged));
    const VarOrRVar at = gpu_blocks_over(w, {root}, blocks, root.name(), 2);
    if (!staged) return;
    // The producer's tile, loaded along its own rows by the same threads (its tile counts, and any
    // other dims, loop serially in each thread: one iteration each, or two over a tap's border).
    Func copy = w.in(source, readers);
    w.compute_at(copy, root, at);
    square_tiles(w, {copy}, source_dim, copy.name());
    // Rows of kTransposeTile + 1 elements: a warp reading down a column of the tile then touches
    // 32 different banks. Measured on the H100 (4096 x 4096 f32 transpose, this schedule written by
    // hand): 60.4 us padded, 100.0 not.
    w.align_storage(copy, Var(copy.function().args()[0]), kTransposeTile + 1);
}

}  // namespace solder
