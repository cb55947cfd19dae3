#include "schedules/pointwise/pointwise_schedule.h"

#include <algorithm>
#include <set>

#include "autosched/model/pipeline_funcs.h"
#include "schedules/writer/schedule_writer.h"
#include "schedules/unfused/unfused.h"

namespace solder {
using namespace Halide;

namespace {

// The vector layout of schedule_pointwise_kernel on stage `s` (a compute_root GPU Func's pure
// definition, or a branch of it). With `unroll_dim` >= 0, that dim is split by `unroll_extent`
// (the branch's condition makes it exact) and its points unrolled in each thread, just outside the
// vector (a vector of them instead with `unroll_vector`).
void lay_out_vectors(ScheduleWriter &w, const StageRef &s, int vector_width, int threads_x, int threads_y,
                     const std::string &tag, int unroll_rows, int unroll_dim, int unroll_extent, bool unroll_vector) {
    std::vector<VarOrRVar> pure = stage_pure_vars(s.func.function(), 0);
    Var xo(tag + "_xo"), xv(tag + "_xv"), bx(tag + "_bx"), tx(tag + "_tx");
    // The planner asks for a width only when it divides the innermost extent: RoundUp rounds nothing.
    // (Width 1: one point per thread, its dim split no further.)
    if (vector_width > 1) {
        w.split(s, pure[0], xo, xv, vector_width, TailStrategy::RoundUp);
    } else {
        w.rename(s, pure[0], xo);
    }
    pure[0] = xo;
    // Points each thread computes together, unrolled: inside the thread loop, just outside the
    // vector (reordered below, once the thread loop exists): rows of the next dim, or the points of
    // `unroll_dim`.
    Var yi(tag + "_yi");
    const bool rows = unroll_rows > 1 && pure.size() >= 2;
    if (rows) {
        Var yo(tag + "_yo");
        w.split(s, pure[1], yo, yi, unroll_rows, TailStrategy::GuardWithIf);
        pure[1] = yo;
    }
    Var ci(tag + "_ci");
    // (Rows and unrolled points of a dim exclude each other; rows and a vector of them do not.)
    const bool channels = (!rows || unroll_vector) && unroll_dim >= 2 && unroll_dim < int(pure.size());
    if (channels) {
        Var co(tag + "_co");
        w.split(s, pure[size_t(unroll_dim)], co, ci, unroll_extent, TailStrategy::RoundUp);
        pure[size_t(unroll_dim)] = co;
    }
    std::vector<VarOrRVar> in_thread;
    if (vector_width > 1) in_thread.push_back(xv);
    if (channels && unroll_vector) in_thread.push_back(ci);  // (the vector innermost)
    if (rows) in_thread.push_back(yi);
    if (channels && !unroll_vector) in_thread.push_back(ci);
    // (The vector alone is innermost already, split off last.)
    const bool reorder_in_thread = in_thread.size() > (vector_width > 1 ? 1u : 0u);
    if (threads_y > 1 && pure.size() >= 2) {
        // Rows of the next dim share the block: thread x along the row, thread y across rows.
        Var by(tag + "_by"), ty(tag + "_ty");
        w.split(s, xo, bx, tx, threads_x, TailStrategy::GuardWithIf);
        w.split(s, pure[1], by, ty, threads_y, TailStrategy::GuardWithIf);
        std::vector<VarOrRVar> order = in_thread;
        for (auto v : {tx, ty, bx, by}) order.push_back(v);
        for (size_t i = 2; i < pure.size(); i++) order.push_back(pure[i]);
        w.reorder(s, order);
        w.gpu_threads(s, tx, ty);
        pure[0] = bx;
        pure[1] = by;
        gpu_blocks_over(w, s, pure, tag, 1);
    } else if (grid_changes(w, pure.size(), 1)) {
        // The grid as the writer maps it (schedules/writer/schedule_writer.h): the threads split off first.
        w.split(s, xo, bx, tx, 256, TailStrategy::GuardWithIf);
        if (reorder_in_thread) {
            std::vector<VarOrRVar> order = in_thread;
            for (auto v : {tx, bx}) order.push_back(v);
            w.reorder(s, order);
        }
        w.gpu_threads(s, tx);
        pure[0] = bx;
        gpu_blocks_over(w, s, pure, tag, 1);
    } else {
        pure = fold_into_three(w, s, pure, tag);
        w.gpu_tile(s, pure[0], bx, tx, 256, TailStrategy::GuardWithIf);
        if (reorder_in_thread) {
            std::vector<VarOrRVar> order = in_thread;
            for (auto v : {tx, bx}) order.push_back(v);
            w.reorder(s, order);
        }
        for (size_t i = 1; i < pure.size(); i++) w.gpu_blocks(s, pure[i]);
    }
    if (rows) w.unroll(s, yi, unroll_rows, TailStrategy::GuardWithIf);
    if (channels && unroll_vector) {
        w.vectorize(s, ci, unroll_extent, TailStrategy::RoundUp);
    } else if (channels) {
        w.unroll(s, ci);
    }
    if (vector_width > 1) w.vectorize(s, xv, vector_width, TailStrategy::RoundUp);
}

// The layout of an interleaved root (PointwiseParams::unroll_dim 0) on stage `s`: dim 0 inside each
// thread (its `unroll` points unrolled, or walked serially where `unroll` is 0), threads over dims
// 1 and 2. A warp's loads of one point of dim 0 then span its threads' pixels, each a few bytes on
// from its neighbour's; tiled over dim 0 itself, 3 channels left 5 of each 8 threads idle.
void lay_out_inner_points(ScheduleWriter &w, const StageRef &s, int threads_x, int threads_y, const std::string &tag,
                          int unroll) {
    std::vector<VarOrRVar> pure = stage_pure_vars(s.func.function(), 0);
    Var co(tag + "_co"), ci(tag + "_ci");
    if (unroll > 0) w.split(s, pure[0], co, ci, unroll, TailStrategy::RoundUp);
    pure.erase(pure.begin());
    if (pure.size() >= 2) {
        gpu_tile_over_blocks(w, s, pure, threads_x, threads_y, tag);
    } else {
        Var bx(tag + "_bx"), tx(tag + "_tx");
        w.split(s, pure[0], bx, tx, threads_x, TailStrategy::GuardWithIf);
        w.gpu_threads(s, tx);
        gpu_blocks_over(w, s, {bx}, tag, 1);
    }
    if (unroll > 0) w.unroll(s, ci);
}

// Stage `s` (its pure dims `pure`, two or more) in tiles of `threads_x` x `threads_y` threads over
// dims 1 and 2 (`threads_x` along dim 1 of two), each thread walking dim 0's points innermost (an
// interleaved image's channels), the other dims block dims. Loops tag_bx, tag_by, tag_tx, tag_ty.
void tile_dims_1_and_2(ScheduleWriter &w, const StageRef &s, const std::vector<VarOrRVar> &pure, int threads_x,
                       int threads_y, const std::string &tag) {
    Var bx(tag + "_bx"), by(tag + "_by"), tx(tag + "_tx"), ty(tag + "_ty");
    if (pure.size() == 2) {
        w.split(s, pure[1], bx, tx, threads_x, TailStrategy::GuardWithIf);
        w.reorder(s, {pure[0], tx, bx});
        w.gpu_threads(s, tx);
        gpu_blocks_over(w, s, {bx}, tag, 1);
        return;
    }
    w.tile(s, pure[1], pure[2], bx, by, tx, ty, threads_x, threads_y, TailStrategy::GuardWithIf);
    std::vector<VarOrRVar> order{pure[0], tx, ty, bx, by}, blocks{bx, by};
    order.insert(order.end(), pure.begin() + 3, pure.end());
    blocks.insert(blocks.end(), pure.begin() + 3, pure.end());
    w.reorder(s, order);
    w.gpu_threads(s, tx, ty);
    gpu_blocks_over(w, s, blocks, tag, 2);
}

}  // namespace

void schedule_flat_kernel(ScheduleWriter &w, Func root, int threads) {
    w.compute_root(root);
    const std::vector<std::string> &args = root.function().args();
    for (int stage = -1; stage < int(root.function().updates().size()); stage++)
        gpu_flat_over(w, {root, stage}, args, 1, threads, root.name() + "_fl" + std::to_string(stage + 1));
}

void schedule_pointwise_kernel(ScheduleWriter &w, Func root, int vector_width, const Target &target, int threads_x,
                               int threads_y, const std::string &loop_tag, int unroll_rows, int unroll_dim,
                               int unroll_extent, bool unroll_vector) {
    auto fn = root.function();
    if (is_gpu_target(target) && (!fn.updates().empty() || vector_width <= 1) &&
        (threads_y > 1 || (!fn.updates().empty() && unroll_dim == 0)) && !(fn.updates().empty() && unroll_dim >= 0)) {
        // Every stage over all the root's dims (the planner checked): tiles of threads_x x threads_y,
        // one point per thread (a reduction root's, or scattered gathers').
        // (A reduction root with `unroll_dim` 0, an interleaved image's: the tiles over dims 1 and
        // 2, each thread walking dim 0's points innermost.)
        w.compute_root(root);
        for (int stage = 0; stage <= int(fn.updates().size()); stage++) {
            std::vector<VarOrRVar> pure = stage_pure_vars(fn, stage);
            const std::string tag = root.name() + "_t" + std::to_string(stage);
            if (unroll_dim == 0 && pure.size() >= 2)
                tile_dims_1_and_2(w, {root, stage - 1}, pure, threads_x, threads_y, tag);
            else
                gpu_tile_over_blocks(w, {root, stage - 1}, pure, threads_x, threads_y, tag);
        }
        return;
    }
    if (!is_gpu_target(target) || (vector_width <= 1 && unroll_dim < 0) || !fn.updates().empty()) {
        schedule_as_own_kernel(w, root, target, threads_x);
        return;
    }
    w.compute_root(root);
    const std::string tag = loop_tag.empty() ? root.name() : loop_tag;
    if (unroll_dim == 0) {
        // An interleaved root: the branch for its dim 0's points at the estimates, beside the
        // general layout (the only one at sizes fixed when planned).
        if (!w.guards_every_tail() || unroll_extent == 0) {
            lay_out_inner_points(w, {root}, threads_x, threads_y, tag, unroll_extent);
            return;
        }
        StageRef branch{root};
        branch.whole_dim = 0;
        branch.whole_extent = unroll_extent;
        lay_out_inner_points(w, branch, threads_x, threads_y, tag, unroll_extent);
        lay_out_inner_points(w, {root}, threads_x, threads_y, tag, 0);
        return;
    }
    if (unroll_dim >= 0 && !w.guards_every_tail()) {
        // Sizes fixed when planned: the dim has that many points, and this is the only schedule.
        lay_out_vectors(w, {root}, vector_width, threads_x, threads_y, tag, unroll_rows, unroll_dim, unroll_extent,
                        unroll_vector);
        return;
    }
    if (unroll_dim >= 0) {
        // The branch first: Halide copies into a specialization the schedule made so far.
        StageRef branch{root};
        branch.whole_dim = unroll_dim;
        branch.whole_extent = unroll_extent;
        lay_out_vectors(w, branch, vector_width, threads_x, threads_y, tag, unroll_rows, unroll_dim, unroll_extent,
                        unroll_vector);
    }
    lay_out_vectors(w, {root}, vector_width, threads_x, threads_y, tag, unroll_rows, -1, 0, false);
}

Func schedule_pointwise_reduction_in_registers(ScheduleWriter &w, Func root, int threads_x, int threads_y,
                                               bool walk_dim0) {
    Func copy = w.in(root, {});
    w.compute_root(copy);
    const std::string tag = root.name() + "_copy";
    const std::vector<VarOrRVar> pure = stage_pure_vars(copy.function(), 0);
    if (walk_dim0 && pure.size() >= 2)
        tile_dims_1_and_2(w, {copy}, pure, threads_x, threads_y, tag);
    else
        gpu_tile_over_blocks(w, {copy}, pure, threads_x, threads_y, tag);
    // (gpu_tile_over_blocks names the innermost thread loop tag + "_tx": one point of the copy.)
    w.compute_at(root, copy, Var(tag + "_tx"));
    return copy;
}

Halide::VarOrRVar schedule_pointwise_serial_dim(ScheduleWriter &w, Func root, int threads_x, int serial_dim,
                                                int unroll) {
    w.compute_root(root);
    const std::string tag = root.name();
    std::vector<VarOrRVar> pure = stage_pure_vars(root.function(), 0);
    const VarOrRVar walked = pure[size_t(serial_dim)];
    pure.erase(pure.begin() + serial_dim);
    Var bx(tag + "_bx"), tx(tag + "_tx");
    w.split({root}, pure[0], bx, tx, threads_x, TailStrategy::GuardWithIf);
    std::vector<VarOrRVar> order{walked, tx, bx};
    order.insert(order.end(), pure.begin() + 1, pure.end());
    w.reorder({root}, order);
    w.gpu_threads({root}, tx);
    if (unroll > 1) w.unroll({root}, walked, unroll, TailStrategy::GuardWithIf);
    pure[0] = bx;
    gpu_blocks_over(w, {root}, pure, tag, 1);
    return tx;
}

void schedule_pointwise_siblings(ScheduleWriter &w, const std::vector<Func> &roots, int vector_width,
                                 const Target &target, int threads_x, int threads_y, int unroll_rows) {
    if (is_gpu_target(target) && vector_width <= 1) {
        // Tiles of threads_x x threads_y, a point per thread (schedule_pointwise_kernel's layout of
        // a root computing reductions at its points), the roots' loops named alike and fused at
        // the thread's point: each thread computes every root's point, and what they read in
        // common is loaded from DRAM once.
        const std::string tag = roots[0].name() + "_t0";
        for (size_t i = 0; i < roots.size(); i++) {
            w.compute_root(roots[i]);
            gpu_tile_over_blocks(w, {roots[i]}, stage_pure_vars(roots[i].function(), 0), threads_x, threads_y, tag);
            w.never_partition_all({roots[i]});
            if (i > 0) w.compute_with({roots[i]}, {roots[0]}, Var(tag + "_tx"));
        }
        return;
    }
    if (!is_gpu_target(target) || vector_width <= 1) {
        for (auto &f : roots)
            schedule_pointwise_kernel(w, f, vector_width, target, threads_x, threads_y, "", unroll_rows);
        return;
    }
    const std::string tag = roots[0].name();
    for (size_t i = 0; i < roots.size(); i++) {
        schedule_pointwise_kernel(w, roots[i], vector_width, target, threads_x, threads_y, tag, unroll_rows);
        // Partitioned, the fused GPU loops of roots whose bounds Halide cannot prove equal put an
        // `if` between block or thread loops, which it rejects ("Unexpected construct inside if
        // statement": random seed 100001's batch, rows of a block as thread y, on OpenCL).
        w.never_partition_all({roots[i]});
        if (i > 0) w.compute_with({roots[i]}, {roots[0]}, Var(tag + "_tx"));
    }
}

}  // namespace solder
