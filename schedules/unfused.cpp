#include "schedules/unfused.h"

#include "schedules/pipeline_funcs.h"

namespace solder {
using namespace Halide;

namespace {

void schedule_stage(Stage s, std::vector<VarOrRVar> pure, const Target &target, const std::string &tag) {
    if (pure.empty()) {
        if (is_gpu_target(target)) s.gpu_single_thread();
        return;
    }
    // Grid y and z each hold 65535 blocks; dims beyond the third share the third.
    pure = fold_into_three(s, pure, tag);
    if (is_gpu_target(target)) {
        Var bx(tag + "_bx"), tx(tag + "_tx");
        s.gpu_tile(pure[0], bx, tx, 256, TailStrategy::GuardWithIf);
        for (size_t i = 1; i < pure.size(); i++) s.gpu_blocks(pure[i]);
    } else {
        s.parallel(pure.back());
    }
}

}  // namespace

void schedule_as_own_kernel(Func f, const Target &target) {
    f.compute_root();
    auto fn = f.function();
    schedule_stage(f, stage_pure_vars(fn, 0), target, f.name() + "_s0");
    for (int u = 0; u < int(fn.updates().size()); u++)
        schedule_stage(f.update(u), stage_pure_vars(fn, u + 1), target, f.name() + "_s" + std::to_string(u + 1));
}

void apply_unfused(const std::vector<Func> &outputs, const Target &target) {
    for (auto &fn : pipeline_functions(outputs)) schedule_as_own_kernel(Func(fn), target);
}

}  // namespace solder
