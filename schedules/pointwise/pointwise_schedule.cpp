#include "schedules/pointwise/pointwise_schedule.h"

#include <algorithm>
#include <set>

#include "autosched/model/pipeline_funcs.h"
#include "schedules/writer/schedule_writer.h"
#include "schedules/unfused/unfused.h"

namespace solder {
using namespace Halide;

void schedule_pointwise_kernel(ScheduleWriter &w, Func root, int vector_width, const Target &target, int threads_x,
                               int threads_y) {
    auto fn = root.function();
    if (is_gpu_target(target) && !fn.updates().empty() && threads_y > 1) {
        // Every stage over all the root's dims (the planner checked): tiles of threads_x x threads_y.
        w.compute_root(root);
        for (int stage = 0; stage <= int(fn.updates().size()); stage++)
            gpu_tile_over_blocks(w, {root, stage - 1}, stage_pure_vars(fn, stage), threads_x, threads_y,
                                 root.name() + "_t" + std::to_string(stage));
        return;
    }
    if (!is_gpu_target(target) || vector_width <= 1 || !fn.updates().empty()) {
        schedule_as_own_kernel(w, root, target);
        return;
    }
    w.compute_root(root);
    const std::string tag = root.name();
    std::vector<VarOrRVar> pure = stage_pure_vars(fn, 0);
    Var xo(tag + "_xo"), xv(tag + "_xv"), bx(tag + "_bx"), tx(tag + "_tx");
    // The planner asks for a width only when it divides the innermost extent: RoundUp rounds nothing.
    w.split({root}, pure[0], xo, xv, vector_width, TailStrategy::RoundUp);
    pure[0] = xo;
    if (threads_y > 1 && pure.size() >= 2) {
        // Rows of the next dim share the block: thread x along the row, thread y across rows.
        Var by(tag + "_by"), ty(tag + "_ty");
        w.split({root}, xo, bx, tx, threads_x, TailStrategy::GuardWithIf);
        w.split({root}, pure[1], by, ty, threads_y, TailStrategy::GuardWithIf);
        std::vector<VarOrRVar> order{xv, tx, ty, bx, by};
        for (size_t i = 2; i < pure.size(); i++) order.push_back(pure[i]);
        w.reorder({root}, order);
        w.gpu_threads({root}, tx, ty);
        pure[0] = bx;
        pure[1] = by;
        gpu_blocks_over(w, {root}, pure, tag, 1);
    } else if (grid_changes(w, pure.size(), 1)) {
        // The grid as the writer maps it (schedules/writer/schedule_writer.h): the threads split off first.
        w.split({root}, xo, bx, tx, 256, TailStrategy::GuardWithIf);
        w.gpu_threads({root}, tx);
        pure[0] = bx;
        gpu_blocks_over(w, {root}, pure, tag, 1);
    } else {
        pure = fold_into_three(w, {root}, pure, tag);
        w.gpu_tile({root}, pure[0], bx, tx, 256, TailStrategy::GuardWithIf);
        for (size_t i = 1; i < pure.size(); i++) w.gpu_blocks({root}, pure[i]);
    }
    w.vectorize({root}, xv, vector_width, TailStrategy::RoundUp);
}

}  // namespace solder
