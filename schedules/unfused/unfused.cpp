#include "schedules/unfused/unfused.h"

#include "autosched/model/pipeline_funcs.h"

namespace solder {
using namespace Halide;

namespace {

void schedule_stage(ScheduleWriter &w, const StageRef &s, std::vector<VarOrRVar> pure, const Target &target,
                    const std::string &tag, int threads) {
    if (pure.empty()) {
        if (is_gpu_target(target)) w.gpu_single_thread(s);
        return;
    }
    if (is_gpu_target(target) && grid_changes(w, pure.size(), 1)) {
        // The grid as the writer maps it (schedules/writer/schedule_writer.h): the innermost split first.
        Var bx(tag + "_bx"), tx(tag + "_tx");
        w.split(s, pure[0], bx, tx, threads, TailStrategy::GuardWithIf);
        w.gpu_threads(s, tx);
        pure[0] = bx;
        gpu_blocks_over(w, s, pure, tag, 1);
        return;
    }
    // Grid y and z each hold 65535 blocks; dims beyond the third share the third.
    pure = fold_into_three(w, s, pure, tag);
    if (is_gpu_target(target)) {
        Var bx(tag + "_bx"), tx(tag + "_tx");
        w.gpu_tile(s, pure[0], bx, tx, threads, TailStrategy::GuardWithIf);
        for (size_t i = 1; i < pure.size(); i++) w.gpu_blocks(s, pure[i]);
    } else {
        w.parallel(s, pure.back());
    }
}

}  // namespace

void schedule_as_own_kernel(ScheduleWriter &w, Func f, const Target &target, int threads) {
    w.compute_root(f);
    auto fn = f.function();
    schedule_stage(w, {f}, stage_pure_vars(fn, 0), target, f.name() + "_s0", threads);
    for (int u = 0; u < int(fn.updates().size()); u++)
        schedule_stage(w, {f, u}, stage_pure_vars(fn, u + 1), target, f.name() + "_s" + std::to_string(u + 1), threads);
}

std::string apply_unfused(const std::vector<Func> &outputs, const Target &target) {
    ScheduleWriter w(outputs);
    for (auto &fn : pipeline_functions(outputs)) schedule_as_own_kernel(w, Func(fn), target);
    return w.source("unfused: every Func in a kernel (loop nest) of its own");
}

}  // namespace solder
