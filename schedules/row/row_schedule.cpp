#include "schedules/row/row_schedule.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "autosched/model/pipeline_funcs.h"
#include "schedules/row/shared_reductions.h"
#include "schedules/writer/schedule_writer.h"
#include "schedules/writer/block_reduce.h"
#include "schedules/writer/reduction_walk.h"
#include "schedules/writer/warp_reduction.h"

namespace solder {
using namespace Halide;

namespace {
// Staged rows of a block that owns several (`block_rows`, each by `threads_x` threads): each row by
// the threads of one row of the block (thread y, where it has as many rows as the block), each
// `width` neighbours per access. Loaded by 256 threads along x as one row is, the block would be
// 256 x its rows threads wide, above the 1024 a block may have.
void stage_rows_in_block(ScheduleWriter &w, Func staged, const std::vector<Var> &v, int64_t row_extent, int threads_x,
                         bool by_rows) {
    const std::string tag = staged.name();
    int width = std::max(1, 16 / std::max(1, staged.type().bytes()));
    while (width > 1 && (row_extent <= 0 || row_extent % (int64_t(threads_x) * width) != 0)) width /= 2;
    Var xo(tag + "_xo"), xi(tag + "_xi"), tx(tag + "_tx"), xv(tag + "_xv");
    std::vector<VarOrRVar> order;
    if (width > 1) {
        w.split({staged}, v[0], xo, xi, threads_x * width, TailStrategy::GuardWithIf);
        w.split({staged}, xi, tx, xv, width, TailStrategy::GuardWithIf);
        order.push_back(xv);
    } else {
        w.split({staged}, v[0], xo, tx, threads_x, TailStrategy::GuardWithIf);
    }
    order.push_back(xo);
    order.push_back(tx);
    if (by_rows) order.push_back(v[1]);
    w.reorder({staged}, order);
    if (by_rows)
        w.gpu_threads({staged}, tx, v[1]);
    else
        w.gpu_threads({staged}, tx);
    if (width > 1) w.vectorize({staged}, xv, width, TailStrategy::GuardWithIf);
}

// A staged row: all threads of the block load it together, each `width` neighbours per access
// (16 bytes where 256 x width divides the row), before the block's stages read it.
void stage_in_block(ScheduleWriter &w, const StagedRow &s, Func root, const Var &at, bool mixed, int threads_x,
                    int block_rows) {
    Func staged = s.func;
    const int64_t row_extent = s.row_extent;
    w.compute_at(staged, root, at);
    pad_block_allocation(w, staged, mixed);
    std::vector<Var> v = pure_vars(staged);
    if (v.empty()) {
        w.one_thread_of_block({staged});
        return;
    }
    if (block_rows > 1) {
        stage_rows_in_block(w, staged, v, row_extent, threads_x, v.size() >= 2 && s.rows == block_rows);
        return;
    }
    const std::string tag = staged.name();
    int width = std::max(1, 16 / std::max(1, staged.type().bytes()));
    while (width > 1 && (row_extent <= 0 || row_extent % (256 * width) != 0)) width /= 2;
    if (width == 1) {
        Var xo(tag + "_xo"), tx(tag + "_tx");
        w.split({staged}, v[0], xo, tx, 256, TailStrategy::GuardWithIf);
        w.reorder({staged}, {xo, tx});  // each thread's loads in one thread loop: no barrier between
        w.gpu_threads({staged}, tx);
        return;
    }
    Var xo(tag + "_xo"), xi(tag + "_xi"), tx(tag + "_tx"), xv(tag + "_xv");
    w.split({staged}, v[0], xo, xi, 256 * width, TailStrategy::GuardWithIf);
    w.split({staged}, xi, tx, xv, width, TailStrategy::GuardWithIf);
    w.reorder({staged}, {xv, xo, tx});
    w.gpu_threads({staged}, tx);
    w.vectorize({staged}, xv, width, TailStrategy::GuardWithIf);
}

// The root's inner dims between the row and the rows (puzzler's 16 slices) unrolled in each
// thread, as the plan lists them, so a `stack`'s select keeps one branch per iteration.
void unroll_row_inner_dims(ScheduleWriter &w, Func root, const std::vector<Var> &v, const RowShape &shape,
                           int inner_dims) {
    for (auto [d, extent] : shape.unrolled_dims)
        if (d > 0 && d < inner_dims && extent > 1)
            w.unroll({root}, v[size_t(d)], int(extent), TailStrategy::GuardWithIf);
}

// With side outputs: the root's rows loop from zero, as the side outputs' rows do (each split, for a
// thread loop of its own): compute_with fuses loops by their values, and the Funcs the block
// computes are needed at one row by both only where these agree.
void count_rows_from_zero(ScheduleWriter &w, Func root, const Var &rows) {
    w.split({root}, rows, rows, Var(root.name() + "_unit"), 1, TailStrategy::GuardWithIf);
}

}  // namespace

void schedule_side_output(ScheduleWriter &w, Func root, Func s, int rows, const VarOrRVar &at) {
    const std::string tag = root.name();
    w.compute_root(s);
    std::vector<Var> v = pure_vars(s);
    // Its buffer spans the root's rows: the Funcs the block computes are needed by both at the
    // same points, a box Halide can then prove one row wide (else the union of two guarded boxes,
    // whose extent, not provably 1, sized a thread loop past the block's limit).
    const bool output = w.is_output(s);
    for (int d = 0; d < int(v.size()) && w.is_output(root); d++) {
        const int rd = int(pure_vars(root).size()) - int(v.size()) + d;
        if (output)
            w.same_output_bounds(s, d, root, rd);
        else
            w.bound_to_output(s, d, root, rd);
    }
    std::vector<VarOrRVar> blocks(v.begin(), v.end());
    if (rows > 1) {
        Var ro(tag + "_ro"), ri(tag + "_ri");
        w.split({s}, v[0], ro, ri, rows, TailStrategy::GuardWithIf);
        w.gpu_threads({s}, ri);
        blocks[0] = ro;
        blocks_over(w, {s}, blocks, tag, 1);
    } else {
        Var t(s.name() + "_t");
        w.split({s}, v[0], v[0], t, 1, TailStrategy::GuardWithIf);
        w.gpu_threads({s}, t);
        blocks_over(w, {s}, blocks, tag);
    }
    // (Partitioned, fused block loops whose bounds Halide cannot prove equal get an `if`
    // between them, which it rejects.)
    w.never_partition_all({s});
    w.compute_with({s}, {root}, at);
}

namespace {

// A sibling output (schedules/row/side_outputs.h: merge_row_siblings), over all the root's dims:
// its rows' inner dims over `threads` threads of the block, `vector` neighbours per access, in
// loops of their own after the root's, fused with the root at the block loop `at`.
void schedule_row_sibling(ScheduleWriter &w, Func root, Func s, int inner_dims, int threads, int vector,
                          const VarOrRVar &at) {
    const std::string tag = root.name();
    w.compute_root(s);
    std::vector<Var> v = pure_vars(s);
    for (int d = 0; d < int(v.size()) && w.is_output(root); d++) w.same_output_bounds(s, d, root, d);
    Var so(s.name() + "_so"), st(s.name() + "_st"), si(s.name() + "_si"), sv(s.name() + "_sv");
    if (vector > 1) {
        w.split({s}, v[0], so, si, threads * vector, TailStrategy::GuardWithIf);
        w.split({s}, si, st, sv, vector, TailStrategy::GuardWithIf);
        w.vectorize({s}, sv, vector, TailStrategy::GuardWithIf);
    } else {
        w.split({s}, v[0], so, st, threads, TailStrategy::GuardWithIf);
    }
    std::vector<VarOrRVar> order;
    if (vector > 1) order.push_back(sv);
    order.push_back(so);
    for (int d = 1; d < inner_dims; d++) order.push_back(v[size_t(d)]);
    order.push_back(st);
    w.reorder({s}, order);
    w.gpu_threads({s}, st);
    count_rows_from_zero(w, s, v[size_t(inner_dims)]);
    std::vector<VarOrRVar> blocks(v.begin() + inner_dims, v.end());
    blocks_over(w, {s}, blocks, tag);
    w.never_partition_all({s});
    w.compute_with({s}, {root}, at);
}

// Side outputs, each read in the kernel through a copy (after the block's reductions were split
// into partials), then fused with the root (schedule_side_output); shared reductions' wrappers once
// every kernel is scheduled (schedules/row/shared_reductions.h).
void schedule_side_outputs(ScheduleWriter &w, Func root, const std::vector<Func> &side, const std::vector<Func> &shared,
                           int rows, const Var &at, int inner_dims, int threads, int vector) {
    clone_for_readers(w, side, root);
    for (Func s : side) {
        if (s.dimensions() == root.dimensions())
            schedule_row_sibling(w, root, s, inner_dims, threads, vector, at);
        else
            schedule_side_output(w, root, s, rows, at);
    }
    if (!shared.empty()) {
        const autosched::GridMap grid = w.grid_map();
        w.after_all([=](ScheduleWriter &later) {
            const autosched::GridMap before = later.grid_map();
            later.set_grid_map(grid);
            write_shared_reductions(later, root, shared, at);
            later.set_grid_map(before);
        });
    }
}

// The constant thread count block_level gives the i-th Func computed per block (its extent per
// block along its threaded var), or 0 (threaded whole): for one point in a kernel that writes side
// outputs or shared reductions (block_reduce.cpp says why).
int64_t constant_threads(const std::vector<int64_t> &extents, size_t i, const std::vector<Func> &side,
                         const std::vector<Func> &shared) {
    const int64_t e = i < extents.size() ? extents[i] : 0;
    return e <= 1 && (!side.empty() || !shared.empty()) ? 0 : e;
}

}  // namespace

// The row template on CUDA with warps (RowShape::warps): one block per row of the root, its threads
// `warps` (thread y) x 32 lanes (thread x), each lane walking the row in steps of the block's
// width, `vector_width` neighbours per access, unrolled so the loads of a step are in flight
// together. The Funcs computed per block reduce with warp shuffles.
void schedule_warp_row_kernel(ScheduleWriter &w, Func root, const RowShape &shape, const std::vector<Func> &at_block,
                              const std::vector<int64_t> &at_block_points,
                              const std::vector<int64_t> &at_block_thread_extents, const Target &target,
                              const std::vector<Func> &side, const std::vector<Func> &shared) {
    std::vector<Var> v = pure_vars(root);
    const std::string tag = root.name();
    const int vector = std::max(1, shape.vector_width);
    Var xo(tag + "_xo"), xi(tag + "_xi"), t(tag + "_t"), xv(tag + "_xv"), warp(tag + "_warp"), lane(tag + "_lane");
    w.split({root}, v[0], xo, xi, 32 * shape.warps * vector, TailStrategy::GuardWithIf);
    w.split({root}, xi, t, xv, vector, TailStrategy::GuardWithIf);
    w.split({root}, t, warp, lane, 32, TailStrategy::GuardWithIf);
    // Inner dims between the row and the rows (puzzler's slices) loop inside each thread, unrolled.
    const int inner = std::max(1, std::min(shape.inner_dims, int(v.size()) - 1));
    std::vector<VarOrRVar> order{xv, xo};
    for (int d = 1; d < inner; d++) order.push_back(v[size_t(d)]);
    order.push_back(lane);
    order.push_back(warp);
    w.reorder({root}, order);
    if (vector > 1) w.vectorize({root}, xv, vector, TailStrategy::GuardWithIf);
    const int64_t steps = (shape.row_extent + 32 * shape.warps * vector - 1) / (32 * shape.warps * vector);
    if (steps > 1) w.unroll({root}, xo, int(std::min<int64_t>(steps, kLoadsInFlight)), TailStrategy::GuardWithIf);
    unroll_row_inner_dims(w, root, v, shape, inner);
    w.gpu_threads({root}, warp);
    w.gpu_lanes({root}, lane);
    if (!side.empty() || !shared.empty()) count_rows_from_zero(w, root, v[size_t(inner)]);
    std::vector<VarOrRVar> blocks(v.begin() + inner, v.end());
    const Var at = blocks_over(w, {root}, blocks, tag);
    const bool mixed = mixed_element_sizes(at_block);
    for (size_t i = 0; i < at_block.size(); i++)
        block_level(w, at_block[i], i < at_block_points.size() ? at_block_points[i] : 1, 1, 32 * shape.warps, "", "",
                    root, at, target, mixed, shape.warps, vector, 0,
                    constant_threads(at_block_thread_extents, i, side, shared));
    schedule_side_outputs(w, root, side, shared, 1, at, inner, 32 * shape.warps, vector);
}

void schedule_row_kernel(ScheduleWriter &w, Func root, const RowShape &shape, const std::vector<Func> &at_block,
                         const std::vector<int64_t> &at_block_points, const std::vector<std::string> &at_block_row_dims,
                         const std::vector<std::string> &at_block_thread_dims,
                         const std::vector<int64_t> &at_block_thread_extents, const std::vector<StagedRow> &staged,
                         const Target &target, const std::vector<Func> &side, const std::vector<Func> &shared) {
    if ((!side.empty() || !shared.empty()) &&
        (!is_gpu_target(target) || int(pure_vars(root).size()) <= shape.inner_dims))
        throw std::logic_error("the row kernel of " + root.name() +
                               " was planned to write side outputs, which only a GPU row kernel with block dims does");
    w.compute_root(root);
    std::vector<Var> v = pure_vars(root);
    const std::string tag = root.name();
    Var xo(tag + "_xo"), xi(tag + "_xi");
    int rank = int(v.size());
    const int inner_dims = std::max(1, std::min(shape.inner_dims, rank));
    const int vector_width = shape.vector_width;
    if (shape.warps > 0 && target.has_feature(Target::CUDA) && rank > inner_dims) {
        schedule_warp_row_kernel(w, root, shape, at_block, at_block_points, at_block_thread_extents, target, side,
                                 shared);
    } else if (is_gpu_target(target)) {
        // `rows` rows per block: 256 / rows threads along each (thread x), the rows as thread y.
        const int rows = rank > inner_dims ? std::max(1, shape.rows_per_block) : 1;
        // 256 threads per block, fewer where a row is short: one `vector_width` access each.
        // (Planned warps without CUDA's shuffles: the same 32 x warps threads, as one row of threads.)
        const int tx_extent = shape.row_threads > 0 ? shape.row_threads
                              : shape.warps > 0     ? 32 * shape.warps
                                                    : 256 / rows;
        Var tx(tag + "_tx"), ro(tag + "_ro"), ri(tag + "_ri");
        if (vector_width > 1) {
            // Each thread writes `vector_width` neighbours with one wide access. The planner asks
            // for it only when 256 x width divides the row, so nothing is rounded past its end.
            Var xv(tag + "_xv");
            w.split({root}, v[0], xo, xi, tx_extent * vector_width, TailStrategy::RoundUp);
            w.split({root}, xi, tx, xv, vector_width, TailStrategy::RoundUp);
            w.vectorize({root}, xv, vector_width, TailStrategy::RoundUp);
        } else {
            w.split({root}, v[0], xo, tx, tx_extent, TailStrategy::GuardWithIf);
        }
        std::vector<VarOrRVar> blocks;
        for (int d = inner_dims; d < rank; d++) blocks.push_back(v[d]);
        Var at = xo;
        if (rows > 1) {
            // The strips of each row loop around the threads: (tx, ri) one thread block.
            w.split({root}, v[inner_dims], ro, ri, rows, TailStrategy::GuardWithIf);
            w.reorder({root}, {tx, ri, xo, ro});
            w.gpu_threads({root}, tx, ri);
            blocks[0] = ro;
            at = blocks_over(w, {root}, blocks, tag, 1);
        } else if (blocks.empty()) {
            w.gpu_threads({root}, tx);
            w.gpu_blocks({root}, xo);  // a small root owned by one block per 256-wide strip
        } else {
            w.gpu_threads({root}, tx);
            if (!side.empty() || !shared.empty()) count_rows_from_zero(w, root, v[size_t(inner_dims)]);
            at = blocks_over(w, {root}, blocks, tag);
        }
        unroll_row_inner_dims(w, root, v, shape, inner_dims);
        std::vector<Func> on_chip = at_block;
        for (auto &s : staged) on_chip.push_back(s.func);
        const bool mixed = mixed_element_sizes(on_chip);
        for (auto &s : staged) stage_in_block(w, s, root, at, mixed, tx_extent, rows);
        std::vector<LaneSplit> splits;
        for (size_t i = 0; i < at_block.size(); i++)
            splits.push_back(
                block_level(w, at_block[i], i < at_block_points.size() ? at_block_points[i] : 1, rows, tx_extent,
                            rows > 1 && i < at_block_row_dims.size() ? at_block_row_dims[i] : "",
                            i < at_block_thread_dims.size() ? at_block_thread_dims[i] : "", root, at, target, mixed, 0,
                            1, 0, constant_threads(at_block_thread_extents, i, side, shared)));
        fuse_lane_splits(w, splits);
        schedule_side_outputs(w, root, side, shared, rows, at, inner_dims, tx_extent, std::max(1, vector_width));
    } else {
        if (rank > inner_dims) w.parallel({root}, v[rank - 1]);
        w.vectorize({root}, v[0], 8, TailStrategy::GuardWithIf);
        Var at = rank > inner_dims ? v[inner_dims] : Var::outermost();
        for (Func f : at_block) w.compute_at(f, root, at);
    }
}

}  // namespace solder
