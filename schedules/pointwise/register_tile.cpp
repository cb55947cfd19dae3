#include "schedules/pointwise/register_tile.h"

#include <algorithm>
#include <set>

#include "autosched/model/contraction.h"
#include "autosched/model/generic_reason.h"
#include "autosched/model/pipeline_funcs.h"
#include "schedules/pointwise/operand_vectors.h"
#include "schedules/pointwise/pointwise_schedule.h"
#include "schedules/writer/window_steps.h"

namespace solder {
using namespace Halide;

namespace autosched {

namespace {

// The names of `f`'s update's pure vars, by dim (an update may name them its own way; empty where
// its arg there is not a plain var).
std::vector<std::string> update_pure_names(const Internal::Function &f) {
    std::vector<std::string> pure;
    for (const Expr &a : f.update(0).args()) {
        const auto *v = a.as<Internal::Variable>();
        pure.push_back(v ? v->name : std::string());
    }
    return pure;
}

// Whether some call in `f`'s update reads a Func or an input at a point whose arg 0 or 1 is `f`'s
// own var of that dim moved by the update's RVars (`in(x + k.x, y + k.y)`): a window over the image
// (a convolution's taps), where neighbouring rows' windows overlap; not one over other dims only (a
// 1 x 1 convolution's channels, `in(x, y, ci) * w(ci, c)`). Lets are looked through (a disc's taps
// `max(in(x + d, y - h), in(x + d, y + h))` bind their shared args in them).
bool window_moves_along_image(const Internal::Function &f) {
    struct Reads : Internal::IRVisitor {
        std::set<std::string> rvars;
        std::vector<std::string> pure;
        bool moves = false;
        using Internal::IRVisitor::visit;
        void visit(const Internal::Call *op) override {
            Internal::IRVisitor::visit(op);
            if (op->call_type != Internal::Call::Halide && op->call_type != Internal::Call::Image) return;
            for (size_t d = 0; d < op->args.size() && d < 2 && d < pure.size(); d++)
                if (!pure[d].empty() && Internal::expr_uses_var(op->args[d], pure[d]))
                    for (auto &r : rvars) moves |= Internal::expr_uses_var(op->args[d], r);
        }
    } reads;
    reads.pure = update_pure_names(f);
    for (const auto &rv : f.update(0).schedule().rvars()) reads.rvars.insert(rv.var);
    for (const Expr &v : f.update(0).values()) Internal::substitute_in_all_lets(v).accept(&reads);
    return reads.moves;
}

// Whether every RVar of `f`'s one update has a constant extent.
bool constant_window(const Internal::Function &f) {
    for (const auto &rv : f.update(0).schedule().rvars())
        if (!Internal::as_const_int(rv.extent)) return false;
    return true;
}

// How far `a` moves when the var `v` moves up by one point (simplified; a constant for an affine
// index).
Expr step_along(const Expr &a, const std::string &v) {
    return Internal::simplify(Internal::substitute(v, Internal::Variable::make(Int(32), v) + 1, a) - a);
}

int window_rows_dim(const Internal::Function &f);

// Whether a thread's rows share work in `f`'s window: neighbouring points' windows overlap along a
// dim above 0 (window_rows_dim), or the update reads some Func or input at args that do not name
// the var of dim 1 (a convolution's weights, a colour matrix, a DCT's basis: loaded once for the
// rows), or at the same points for neighbouring rows (an 8 x 8 block's rows). A window strided
// apart with nothing else read (a 2 x 2 max pool, a downsample by a `Param` factor) shares
// nothing, and the rows only cost threads: measured on the H200, a user's
// max pool 98.2 -> 71.5 us one point per thread, a downsample by 4 10.7 -> 10.3; a colour matrix
// 62.6 -> 117.8 and an 8 x 8 DCT 70.7 -> 142.8 had they lost their rows too.
bool rows_share_work(const Internal::Function &f) {
    if (window_rows_dim(f) >= 1) return true;
    const std::vector<std::string> pure = update_pure_names(f);
    if (pure.size() < 2 || pure[1].empty()) return true;
    struct Reads : Internal::IRVisitor {
        std::string row, self;
        bool shared = false;
        using Internal::IRVisitor::visit;
        void visit(const Internal::Call *op) override {
            Internal::IRVisitor::visit(op);
            if (op->call_type != Internal::Call::Halide && op->call_type != Internal::Call::Image) return;
            if (op->name == self) return;  // (the update's own value)
            bool names = false;
            for (const Expr &a : op->args) {
                if (!Internal::expr_uses_var(a, row)) continue;
                names = true;
                // From one row to the next the arg moves by a step: 0 or 1 shares (rows of a
                // block, `y / 8 * 8 + r`, read the same points: a step that still names the row);
                // a constant stride of 2 or more, or one set by a parameter, does not.
                const Expr step = step_along(a, row);
                const auto k = Internal::as_const_int(step);
                shared = shared || (k ? (*k >= -1 && *k <= 1) : Internal::expr_uses_var(step, row));
            }
            shared = shared || !names;
        }
    } reads;
    reads.row = pure[1];
    reads.self = f.name();
    for (const Expr &v : f.update(0).values()) Internal::substitute_in_all_lets(v).accept(&reads);
    return reads.shared;
}

// A window a thread can reduce for its rows in registers: one update in place over an RDom of 2
// steps or more (at the estimates), at most kMaxRegisterTileSteps of them of constant extent (the
// ones unrolled), no predicate, two dims or more.
bool small_window(const FuncNode &M) {
    const int64_t steps = update_steps(M);
    if (M.is_input || !M.is_reduction() || M.dims.size() < 2 || steps < 2 || !reduces_per_point(M.function))
        return false;
    // The steps unrolled for the rows: those of constant extent (a 3 x 3 convolution's taps, its
    // channels a loop where their number is an input's extent).
    int64_t unrolled = 1;
    for (const auto &rv : M.function.update(0).schedule().rvars())
        if (auto e = Internal::as_const_int(rv.extent)) unrolled *= std::max<int64_t>(*e, 1);
    if (unrolled > kMaxRegisterTileSteps) return false;
    // Sized at run time, its steps stay loops: only neighbouring rows' overlapping windows gain. Measured
    // on the H100: depthwise_conv's 1 x 1 convolution over 32 channels 92.8 -> 107.2 us so (the
    // app), a 5 x 5 window sized by its weights' buffer 118.3 -> 63.7, max_filter's disc of
    // maxima 1886 -> 1600.
    return (constant_window(M.function) || window_moves_along_image(M.function)) && rows_share_work(M.function);
}

// A root over at least a tile of 32 x (8 x the rows per thread) points at the estimates.
bool spans_a_tile(const FuncNode &O) {
    return O.dims.size() >= 2 && O.region.size() >= 2 && O.region[0].extent() >= kPointwiseTileX &&
           O.region[1].extent() >= kPointwiseTileY * kRegisterTileRows;
}

// The first dim of `f` above 0 along which neighbouring points' windows overlap: some call in its
// update reads at an arg that holds one of the update's RVars and moves by one point per point of
// that dim (`in(x + r.x, y + r.y)`: dim 1; a block matcher's `prev(8 * bx + p.x + dx, 8 * by + p.y
// + dy)` per block and offset: dim 2, its offsets, since its blocks' windows lie 8 apart; not a 1-D
// tap along rows `in(x + r, y) * k(r)`). Lets are looked through, as the inline `sum` binds its
// call's args. -1 where none.
int window_rows_dim(const Internal::Function &f) {
    const std::vector<std::string> pure = update_pure_names(f);
    struct Calls : Internal::IRGraphVisitor {
        std::vector<Expr> args;  // the args that hold an RVar
        using Internal::IRGraphVisitor::visit;
        void visit(const Internal::Call *op) override {
            Internal::IRGraphVisitor::visit(op);
            if (op->call_type != Internal::Call::Halide && op->call_type != Internal::Call::Image) return;
            for (const Expr &a : op->args)
                if (uses_rvar(a)) args.push_back(a);
        }
    } calls;
    for (const Expr &e : f.update(0).values()) Internal::substitute_in_all_lets(e).accept(&calls);
    for (int d = 1; d < int(pure.size()); d++) {
        if (pure[size_t(d)].empty()) continue;
        for (const Expr &a : calls.args) {
            if (!Internal::expr_uses_var(a, pure[size_t(d)])) continue;
            const Expr step = step_along(a, pure[size_t(d)]);
            const auto k = Internal::as_const_int(step);
            if (k && (*k == 1 || *k == -1)) return d;
        }
    }
    return -1;
}

// A contraction (autosched/model/contraction.h) over `M`'s dims `dx` and `dy` that is not a small
// window (the register tile's).
bool contraction(const FuncNode &M, int dx, int dy) { return contraction_over(M, dx, dy) && !small_window(M); }

// A root over at least a block's tile of the contraction layout over its dims 0 and `dy` at the
// estimates.
bool spans_a_contraction_tile(const FuncNode &O, int dy) {
    const int64_t tile = int64_t(kContractionTile) * kContractionThreads;
    return dy > 0 && O.dims.size() > size_t(dy) && O.region.size() > size_t(dy) && O.region[0].extent() >= tile &&
           O.region[size_t(dy)].extent() >= tile;
}

// The members of `root`'s kernel for which `pick` holds, read in the kernel only at the root's
// own points: by the root, or through pure Funcs inlined into it that are so read (`out = vsum /
// wsum`, each a window's sum), and computed in no other kernel (`only_here`). With `permuted`, a
// member may be read at those points with its dims in another order by its readers (all in the
// same one), and `pick` is given, for each of its dims, the root's dim it is.
std::vector<std::string> read_at_root_points(
    const FuncGraph &g, int root, const std::vector<int> &members, const std::function<bool(int)> &only_here,
    const std::function<bool(const FuncNode &, const std::vector<int> &)> &pick, bool permuted = false) {
    const FuncNode &O = g.nodes[size_t(root)];
    std::vector<bool> inside(g.nodes.size(), false);
    for (int m : members) inside[size_t(m)] = true;
    inside[size_t(root)] = true;
    std::vector<std::string> picked;
    for (int m : members) {
        const FuncNode &M = g.nodes[size_t(m)];
        if (m == root || !only_here(m)) continue;
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
        std::vector<int> dims(M.dims.size());
        for (size_t d = 0; d < dims.size(); d++) dims[d] = int(d);
        std::vector<int> seen;
        for (int e : M.out_edges) {
            const FuncEdge &E = g.edges[size_t(e)];
            if (!inside[size_t(E.consumer)]) continue;
            read = true;
            std::vector<int> perm = E.access == Access::Pointwise ? dims : std::vector<int>{};
            if (permuted && E.access == Access::Remap)
                perm = permuted_read(g.nodes[size_t(E.consumer)].function, M.name);
            if (perm.empty() || (!seen.empty() && perm != seen) || !at_root_points(E.consumer)) elsewhere = true;
            seen = perm;
        }
        if (M.dims.size() == O.dims.size() && read && !elsewhere && pick(M, seen)) picked.push_back(M.name);
    }
    return picked;
}

// A pure root (no updates, no specializations) that members are computed per thread of.
bool pure_root(const FuncNode &O) {
    return O.updates == 0 && O.function.has_pure_definition() && !has_specializations(O.function);
}

}  // namespace

bool register_tile_root(const FuncGraph &g, int root) {
    const FuncNode &O = g.nodes[size_t(root)];
    // A stored Func (no output) otherwise takes one point per thread at the points of a copy in
    // one launch: the rows pay only where their windows overlap. Measured on the H100, a stereo
    // matcher's 5 x 5 sums of absolute differences for 32 disparities 1322 -> 812 us, nl_means
    // 4875 -> 4057, depthwise_conv 92.9 -> 88.8; a 7-tap pass along rows 68.2 -> 103.8, so not.
    return !has_specializations(O.function) && spans_a_tile(O) && small_window(O) &&
           (O.is_output || window_rows_dim(O.function) >= 1);
}

int register_rows_dim(const FuncGraph &g, int root) {
    const FuncNode &O = g.nodes[size_t(root)];
    const int d = window_rows_dim(O.function);
    // (Over dims 0 and 1 as well where the rows dim's points are fewer than a thread's rows.)
    return d >= 2 && O.region.size() > size_t(d) && O.region[size_t(d)].extent() >= kRegisterTileRows ? d : 1;
}

int rows_apart(int64_t extent) {
    if (extent <= kMaxRowsApart) return int(std::max<int64_t>(extent, 1));
    int best = kRegisterTileRows;
    int64_t least = -1;
    for (int r = kRegisterTileRows; r <= kMaxRowsApart; r++) {
        const int64_t past = (extent + r - 1) / r * r - extent;
        if (least < 0 || past <= least) least = past, best = r;
    }
    return best;
}

std::vector<std::string> register_tile_members(const FuncGraph &g, int root, const std::vector<int> &members,
                                               const std::function<bool(int)> &only_here) {
    const FuncNode &O = g.nodes[size_t(root)];
    if (!pure_root(O) || !spans_a_tile(O)) return {};
    return read_at_root_points(g, root, members, only_here,
                               [](const FuncNode &M, const std::vector<int> &) { return small_window(M); });
}

std::vector<std::string> contraction_members(const FuncGraph &g, int root, const std::vector<int> &members,
                                             const std::function<bool(int)> &only_here, int dy,
                                             std::vector<std::pair<int, int>> &dims) {
    dims.clear();
    const FuncNode &O = g.nodes[size_t(root)];
    if (!pure_root(O) || !spans_a_contraction_tile(O, dy)) return {};
    auto over_root_tile = [&](const FuncNode &M, const std::vector<int> &perm) {
        auto dim_of = [&](int d) { return int(std::find(perm.begin(), perm.end(), d) - perm.begin()); };
        const int mx = dim_of(0), my = dim_of(dy);
        if (mx >= int(perm.size()) || my >= int(perm.size()) || !contraction(M, mx, my)) return false;
        dims.emplace_back(mx, my);
        return true;
    };
    std::vector<std::string> picked = read_at_root_points(g, root, members, only_here, over_root_tile, true);
    // (Every reduction of the kernel computed so, or none: the layout is the kernel's.)
    for (int m : members)
        if (m != root && g.nodes[size_t(m)].is_reduction() &&
            std::find(picked.begin(), picked.end(), g.nodes[size_t(m)].name) == picked.end()) {
            dims.clear();
            return {};
        }
    return picked;
}

std::vector<std::string> vector_operand_inputs(const FuncGraph &g, int root, const std::vector<int> &members,
                                               const std::string &member, int dx, int dy) {
    const FuncNode &O = g.nodes[size_t(root)];
    if (!O.is_output) return {};
    for (int f : members)
        if (read_under_a_condition(g.nodes[size_t(f)].function, member)) return {};
    const int m = g.find(member);
    return m < 0 ? std::vector<std::string>{}
                 : operand_vectors(Func(g.nodes[size_t(m)].function), dx, dy, kContractionStepUnroll).inputs;
}

bool contraction_root(const FuncGraph &g, int root, int dy) {
    const FuncNode &O = g.nodes[size_t(root)];
    return !has_specializations(O.function) && spans_a_contraction_tile(O, dy) && contraction(O, 0, dy);
}

}  // namespace autosched

namespace {

// Stage `s` of `root` over `threads_x` x `threads_y` threads, each `rows` consecutive points of dim
// `dy` (unrolled) by `cols` consecutive points of dim 0 (unrolled, innermost), tails guarded (a
// thread's points: `points_tail`), the other dims as block dims. Returns the thread loop along x.
// `rows_apart`: the threads' y over dim 1 instead, the rows' dim `dy` (2 or above) outside them,
// its groups of `rows` a grid dim (a block matcher's offsets, whose windows overlap, each thread
// computing `rows` of them for its block).
// `serial_others`: the dims but dx, dy and the outermost loop in each block, around the threads,
// instead of being grid dims (a grid of more than three dims fuses them, and Halide then bounds a
// Func computed per thread over the whole of a fused dim's inner part).
Var lay_out_tile(ScheduleWriter &w, const StageRef &s, int rows, int cols, int threads_x, int threads_y, int dy = 1,
                 TailStrategy points_tail = TailStrategy::GuardWithIf, bool rows_apart = false, int dx = 0,
                 bool serial_others = false, int shared_dim = -1, int shared_points = 0) {
    std::vector<VarOrRVar> pure = stage_pure_vars(s.func.function(), s.update + 1);
    const std::string tag = s.func.name();
    Var bx(tag + "_bx"), tx(tag + "_tx"), yq(tag + "_yq"), yr(tag + "_yr"), by(tag + "_by"), ty(tag + "_ty"),
        xq(tag + "_xq"), xr(tag + "_xr"), sq(tag + "_sq"), sr(tag + "_sr");
    rows_apart = rows_apart && dy >= 2 && cols == 1 && dx == 0;
    // (A shared dim's points in each thread: its groups take its place among the grid dims.)
    const bool shared = shared_dim >= 0 && shared_dim != dy && shared_dim != dx && !serial_others;
    if (shared) {
        w.split(s, pure[size_t(shared_dim)], sq, sr, shared_points, TailStrategy::GuardWithIf);
        pure[size_t(shared_dim)] = sq;
    }
    w.split(s, pure[size_t(dy)], yq, yr, rows, points_tail);
    if (cols > 1) w.split(s, pure[size_t(dx)], xq, xr, cols, points_tail);
    w.split(s, cols > 1 ? VarOrRVar(xq) : pure[size_t(dx)], bx, tx, threads_x, TailStrategy::GuardWithIf);
    w.split(s, rows_apart ? pure[1] : VarOrRVar(yq), by, ty, threads_y, TailStrategy::GuardWithIf);
    std::vector<VarOrRVar> order{yr, tx, ty}, blocks{bx, by};
    if (shared) order.insert(order.begin() + 1, sr);
    if (cols > 1) order.insert(order.begin(), xr);
    for (size_t d = 0; d + 1 < pure.size() && serial_others; d++)
        if (int(d) != dy && int(d) != dx) order.push_back(pure[d]);
    order.push_back(bx), order.push_back(by);
    if (rows_apart) order.push_back(yq), blocks.push_back(yq);
    for (size_t d = 0; d < pure.size(); d++)
        if (int(d) != dy && int(d) != dx && !(rows_apart && d == 1) && (!serial_others || d + 1 == pure.size()))
            order.push_back(pure[d]), blocks.push_back(pure[d]);
    w.reorder(s, order);
    w.gpu_threads(s, tx, ty);
    gpu_blocks_over(w, s, blocks, tag, 2);
    w.unroll(s, yr);
    if (shared) w.unroll(s, sr);
    if (cols > 1) w.unroll(s, xr);
    return tx;
}

// Contraction `m` computed per thread of `root` (at `tx`) for the thread's kContractionTile x
// kContractionTile points, its dims `dx` and `dy` the root's tile dims: its storage a constant
// tile (in registers), its points innermost and unrolled (`guarded`: split by the tile under a
// guard), then its first RVar split by kContractionStepUnroll (unrolled), then the rest of its
// RVars and dims as loops. Its operands read along the steps as `ov` says (operand_vectors.h).
void contraction_per_thread(ScheduleWriter &w, Func m, Func root, const Var &tx, int dx, int dy, bool guarded,
                            const OperandVectors &ov = {}) {
    w.compute_at(m, root, tx);
    const Internal::Function fn = m.function();
    const std::vector<VarOrRVar> pure = stage_pure_vars(fn, 0), mu = stage_pure_vars(fn, 1);
    // Plain unrolls, where Halide proves the tile's extents constant; read under a condition (a
    // causal mask), its region is bounded by the condition too: split by the tile under a guard.
    auto unroll = [&](const StageRef &s, const VarOrRVar &v) {
        if (guarded)
            w.unroll(s, v, kContractionTile, TailStrategy::GuardWithIf);
        else
            w.unroll(s, v);
    };
    unroll({m}, pure[size_t(dx)]);
    unroll({m}, pure[size_t(dy)]);
    const std::vector<std::string> &args = fn.args();
    for (int d = 0; d < int(args.size()); d++)
        w.bound_storage(m, Var(args[size_t(d)]), d == dx || d == dy ? kContractionTile : 1);
    const auto &rvars = fn.update(0).schedule().rvars();
    const RVar first(rvars[0].var), ko(rvars[0].var + "_ko"), ki(rvars[0].var + "_ki");
    auto steps = [&](const StageRef &s) {
        w.split(s, first, ko, ki, kContractionStepUnroll, TailStrategy::GuardWithIf);
        std::vector<VarOrRVar> order{mu[size_t(dx)], mu[size_t(dy)], ki, ko};
        for (size_t i = 1; i < rvars.size(); i++) order.push_back(RVar(rvars[i].var));
        for (int d = 0; d < int(mu.size()); d++)
            if (d != dx && d != dy) order.push_back(mu[size_t(d)]);
        w.reorder(s, order);
        unroll(s, mu[size_t(dx)]);
        unroll(s, mu[size_t(dy)]);
        w.unroll(s, ki);
    };
    if (ov.operands.empty()) {
        steps({m, 0});
        return;
    }
    StageRef aligned{m, 0};
    aligned.branch = ov.branch.condition;
    aligned.branch_source = ov.branch.source;
    steps(aligned);
    steps({m, 0});
    load_operand_vectors(w, ov, m, ko, kContractionStepUnroll, kContractionTile);
}

}  // namespace

void schedule_register_tile(ScheduleWriter &w, Func root, const std::vector<Func> &members, int rows) {
    w.compute_root(root);
    const Var tx = lay_out_tile(w, {root}, rows, 1, kPointwiseTileX, kPointwiseTileY);
    for (Func m : members) window_per_thread(w, m, root, tx, rows);
}

void schedule_register_tile_root(ScheduleWriter &w, Func root, int rows, int dy, int shared_dim, int shared_points) {
    w.compute_root(root);
    Func window = w.rfactor({root, 0}, {});
    lay_out_tile(w, {root}, rows, 1, kPointwiseTileX, kPointwiseTileY, dy, TailStrategy::GuardWithIf, true, 0, false,
                 shared_dim, shared_points);
    const Var tx = lay_out_tile(w, {root, 0}, rows, 1, kPointwiseTileX, kPointwiseTileY, dy, TailStrategy::GuardWithIf,
                                true, 0, false, shared_dim, shared_points);
    window_per_thread(w, window, root, tx, rows, dy, shared_dim, shared_points);
}

namespace {

// Whether a Func's values compute a math function or load twice or more (its pure definition).
bool costs_more_than_a_load(const Internal::Function &f) {
    struct Count : Internal::IRVisitor {
        int loads = 0, math = 0;
        using Internal::IRVisitor::visit;
        void visit(const Internal::Call *c) override {
            if (c->call_type == Internal::Call::Halide || c->call_type == Internal::Call::Image)
                loads++;
            else if (c->call_type == Internal::Call::PureExtern || c->call_type == Internal::Call::Extern)
                math++;
            Internal::IRVisitor::visit(c);
        }
    } n;
    if (!f.has_pure_definition()) return true;
    for (const Expr &v : f.definition().values()) v.accept(&n);
    return n.math > 0 || n.loads >= 2;
}

}  // namespace

int autosched::register_shared_dim(const autosched::FuncGraph &g, int root, int dy) {
    const autosched::FuncNode &O = g.nodes[size_t(root)];
    if (O.updates != 1 || O.region.size() < 3) return -1;
    const Internal::Function &fn = O.function;
    const std::vector<std::string> &args = fn.args();
    // (Enough threads left: each computes its rows and the dim's points.)
    constexpr int64_t kMinThreads = 65536;
    for (int d = 1; d < int(O.region.size()); d++) {
        const int64_t points = O.region[size_t(d)].extent();
        if (d == dy || points < 2 || points > autosched::kMaxSharedPoints ||
            O.points() / (points * kRegisterTileRows) < kMinThreads)
            continue;
        // A Func the update reads at points that do not name the dim's var, and that costs more
        // than a load: a math function, or two loads or more. (A depthwise convolution's weights
        // shared over its batch took 57.7 against 49.8 us on the H200.)
        struct Shared : Internal::IRVisitor {
            std::string var;
            bool found = false;
            using Internal::IRVisitor::visit;
            void visit(const Internal::Call *c) override {
                if (c->call_type == Internal::Call::Halide && c->func.defined()) {
                    bool names = false;
                    for (const Expr &a : c->args) names = names || Internal::expr_uses_var(a, var);
                    found = found || (!names && costs_more_than_a_load(Internal::Function(c->func)));
                }
                Internal::IRVisitor::visit(c);
            }
        } shared;
        shared.var = args[size_t(d)];
        for (const Expr &v : fn.update(0).values()) v.accept(&shared);
        if (shared.found) return d;
    }
    return -1;
}

void schedule_contraction_tile(ScheduleWriter &w, Func root, int dy, const std::vector<Func> &members,
                               const std::vector<std::pair<int, int>> &dims, const std::vector<bool> &guarded,
                               const std::vector<bool> &loads_vectors) {
    w.compute_root(root);
    std::vector<OperandVectors> ov;
    bool vectors = false;
    for (size_t i = 0; i < members.size(); i++) {
        ov.push_back(i < loads_vectors.size() && loads_vectors[i]
                         ? operand_vectors(members[i], dims[i].first, dims[i].second, kContractionStepUnroll)
                         : OperandVectors{});
        vectors |= !ov.back().operands.empty();
    }
    Var tx;
    if (!vectors) {
        tx = lay_out_tile(w, {root}, kContractionTile, kContractionTile, kContractionThreads, kContractionThreads, dy);
    } else {
        // A wrapper loads the rows of its thread's whole tile (operand_vectors.h), where Halide's
        // guards of the tile's tails do not reach: the tiles are shifted inwards instead (the last
        // one overlaps its neighbour), in a branch for a root at least a tile wide in both dims, and
        // a root narrower than that takes one point per thread.
        StageRef whole{root};
        whole.spans_x = whole.spans_y = kContractionTile;
        whole.spans_dim_y = dy;
        tx = lay_out_tile(w, whole, kContractionTile, kContractionTile, kContractionThreads, kContractionThreads, dy,
                          TailStrategy::ShiftInwards);
        lay_out_tile(w, {root}, 1, 1, kContractionThreads, kContractionThreads, dy);
    }
    for (size_t i = 0; i < members.size(); i++)
        contraction_per_thread(w, members[i], root, tx, dims[i].first, dims[i].second, guarded[i], ov[i]);
}

void schedule_contraction_tile_root(ScheduleWriter &w, Func root, int dy, int dx, bool serial_others) {
    w.compute_root(root);
    Func steps = w.rfactor({root, 0}, {});
    if (!serial_others)
        lay_out_tile(w, {root}, kContractionTile, kContractionTile, kContractionThreads, kContractionThreads, dy,
                     TailStrategy::GuardWithIf, false, dx);
    const Var tx = lay_out_tile(w, {root, 0}, kContractionTile, kContractionTile, kContractionThreads,
                                kContractionThreads, dy, TailStrategy::GuardWithIf, false, dx, serial_others);
    contraction_per_thread(w, steps, root, tx, dx, dy, false);
}

}  // namespace solder
