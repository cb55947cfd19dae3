#include "schedules/inner_outer/inner_outer_schedule.h"

#include <algorithm>

#include "schedules/writer/block_reduce.h"
#include "autosched/model/pipeline_funcs.h"

namespace solder {
using namespace Halide;

namespace {

// Steps of a thread's walk along a row unrolled, so that their loads are in flight together.
constexpr int kRowStepsUnrolled = 8;
// The column sums' walk down the staged rows, unrolled as far.
constexpr int kColumnStepsUnrolled = 8;

// An input loaded once per block: lanes (thread x) take 16-byte pieces of each row, one row per
// thread y, so each thread's loads of its row are in flight together.
void stage_rows(ScheduleWriter &w, Func f, Func root, const Var &at, int lanes, int64_t row_extent) {
    w.compute_at(f, root, at);
    std::vector<Var> v = pure_vars(f);
    if (v.size() < 2) {
        w.one_thread_of_block({f});
        return;
    }
    const std::string tag = f.name();
    int width = std::max(1, 16 / std::max(1, f.type().bytes()));
    while (width > 1 && (row_extent <= 0 || row_extent % (int64_t(lanes) * width) != 0)) width /= 2;
    Var so(tag + "_so"), si(tag + "_si"), sx(tag + "_sx"), sv(tag + "_sv");
    w.split({f}, v[0], so, si, lanes * width, TailStrategy::GuardWithIf);
    w.split({f}, si, sx, sv, width, TailStrategy::GuardWithIf);
    w.reorder({f}, {sv, so, sx, v[1]});
    w.gpu_threads({f}, sx, v[1]);
    if (width > 1) w.vectorize({f}, sv, width, TailStrategy::GuardWithIf);
    const int64_t steps = row_extent > 0 ? (row_extent + lanes * width - 1) / (lanes * width) : 1;
    if (steps > 1) w.unroll({f}, so, int(std::min<int64_t>(steps, kRowStepsUnrolled)), TailStrategy::GuardWithIf);
}

}  // namespace

void schedule_inner_outer_kernel(ScheduleWriter &w, Func root, const InnerOuterShape &shape,
                                 const std::vector<Func> &row_sums, const std::vector<std::string> &row_dims,
                                 const std::vector<Func> &staged, const std::vector<BlockColumnSum> &columns,
                                 const Var &slice, const RVar &step, const Target &target) {
    w.compute_root(root);
    std::vector<Var> v = pure_vars(root);
    if (!is_gpu_target(target) || v.size() < 2)
        throw std::runtime_error("inner-outer template: " + root.name() + " needs a GPU target and rows");
    const std::string tag = root.name();
    Var xo(tag + "_xo"), xi(tag + "_xi"), tx(tag + "_tx"), xv(tag + "_xv"), ro(tag + "_ro"), ri(tag + "_ri");
    // Each row by `lanes` threads (thread x), `vector` neighbours each, in steps of the lanes'
    // width; the block's rows as thread y.
    const int vec = std::max(1, shape.vector);
    if (vec > 1) {
        w.split({root}, v[0], xo, xi, shape.lanes * vec, TailStrategy::GuardWithIf);
        w.split({root}, xi, tx, xv, vec, TailStrategy::GuardWithIf);
    } else {
        w.split({root}, v[0], xo, tx, shape.lanes, TailStrategy::GuardWithIf);
    }
    w.split({root}, v[1], ro, ri, shape.rows, TailStrategy::GuardWithIf);
    std::vector<VarOrRVar> order;
    if (vec > 1) order.push_back(xv);
    for (const VarOrRVar &d : {VarOrRVar(xo), VarOrRVar(tx), VarOrRVar(ri), VarOrRVar(ro)}) order.push_back(d);
    for (size_t d = 2; d < v.size(); d++) order.push_back(v[d]);
    w.reorder({root}, order);
    w.gpu_threads({root}, tx, ri);
    w.gpu_blocks({root}, ro);
    for (size_t d = 2; d < v.size(); d++) w.gpu_blocks({root}, v[d]);
    if (vec > 1) w.vectorize({root}, xv, vec, TailStrategy::GuardWithIf);
    w.unroll({root}, xo, kRowStepsUnrolled, TailStrategy::GuardWithIf);
    w.never_partition_all({root});
    for (Func f : staged) stage_rows(w, f, root, ro, shape.lanes, shape.row_extent);
    reduce_rows_in_block(w, row_sums, row_dims, shape.rows, shape.lanes, root, ro, target);

    // The column sums' partials, one thread per column (thread x, then y: the planner makes sure
    // the block's lanes x rows threads cover a row), in the same thread loops as the root's rows (compute_with at the
    // threads: no barrier between the two, nothing the columns need is written there). Each
    // sum's wrapper writes its partials out; the sums themselves are computed in each thread's
    // registers, their walks down the staged rows fused into one loop body (compute_with at the
    // walk), so what they share is loaded and computed once.
    // compute_with matches loops by name, where "a.b" matches "b": each wrapper's loops are
    // renamed to the root's ("<var>.<split>..." as Halide calls split loops).
    auto root_dim = [&](const Var &d) {
        for (const auto &dim : root.function().definition().schedule().dims())
            if (dim.var == d.name() || Internal::ends_with(dim.var, "." + d.name())) return Var(dim.var);
        throw std::runtime_error("inner-outer template: " + root.name() + " has no loop " + d.name());
    };
    const Var col(shape.column_name);
    // The grid dims the sums keep: each one's name in the sums, and the root's dim it is.
    std::vector<std::pair<Var, Var>> kept;
    for (size_t d = 2; d < v.size(); d++)
        if (d < shape.kept_names.size() && !shape.kept_names[d].empty())
            kept.push_back({Var(shape.kept_names[d]), v[d]});
    for (const BlockColumnSum &c : columns) {
        // A global wrapper: the reduction's own template may rfactor it again (the lanes that
        // add the partials), and the new Func must read the wrapper too.
        Func wrap = w.in(c.partials, {});
        w.compute_root(wrap);
        // Its columns' extent known: the thread loop it shares with the root's rows is then as
        // long as theirs. (Left to bounds inference, the extent of a pipeline whose buffers are
        // not declared dense was an expression the host could not evaluate: "Symbol not found:
        // ...fused...loop_extent" when compiling.)
        if (shape.row_extent > 0) w.bound(wrap, Var(shape.column_name), 0, shape.row_extent);
        const std::string wt = wrap.name();
        Var cx(wt + "_cx"), cy(wt + "_cy");
        w.split({wrap}, col, cy, cx, shape.lanes, TailStrategy::GuardWithIf);
        std::vector<VarOrRVar> worder{cx, cy, slice};
        for (auto &[own, root_var] : kept) worder.push_back(own);
        w.reorder({wrap}, worder);
        w.rename({wrap}, cx, root_dim(tx));
        w.rename({wrap}, cy, root_dim(ri));
        w.gpu_threads({wrap}, tx, ri);
        w.rename({wrap}, slice, root_dim(ro));
        w.gpu_blocks({wrap}, ro);
        for (auto &[own, root_var] : kept) {
            w.rename({wrap}, own, root_var);
            w.gpu_blocks({wrap}, root_var);
        }
        w.never_partition_all({wrap});
        w.compute_with({wrap}, {root}, tx);
    }
    std::vector<VarOrRVar> outer_dims;  // the sums' dims besides the column, in one order
    for (auto &[own, root_var] : kept) outer_dims.push_back(own);
    outer_dims.push_back(slice);
    for (size_t i = 0; i < columns.size(); i++) {
        Func p = columns[i].partials;
        w.compute_at(p, root, tx);  // the loop every wrapper shares with the root
        std::vector<VarOrRVar> pure_order{col}, walk_order{col, step};
        pure_order.insert(pure_order.end(), outer_dims.begin(), outer_dims.end());
        walk_order.insert(walk_order.end(), outer_dims.begin(), outer_dims.end());
        w.reorder({p}, pure_order);
        w.reorder({p, 0}, walk_order);
        w.unroll({p, 0}, step, kColumnStepsUnrolled, TailStrategy::GuardWithIf);
        if (i > 0) w.compute_with({p, 0}, {columns[0].partials, 0}, step);
    }
}

}  // namespace solder
