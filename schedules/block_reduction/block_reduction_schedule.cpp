#include "schedules/block_reduction/block_reduction_schedule.h"

#include <algorithm>
#include <set>

#include "autosched/model/pipeline_funcs.h"
#include "schedules/writer/schedule_writer.h"
#include "schedules/unfused/unfused.h"
#include "schedules/writer/block_reduce.h"

namespace solder {
using namespace Halide;

void schedule_block_reduction(ScheduleWriter &w, Func f, const Target &target) {
    auto fn = f.function();
    if (!is_gpu_target(target) || fn.updates().size() != 1 || fn.update(0).schedule().rvars().empty() ||
        fn.args().empty()) {
        schedule_as_own_kernel(w, f, target);
        return;
    }
    w.compute_root(f);
    const std::string tag = f.name();
    // Both stages: one block per result.
    gpu_blocks_over(w, {f}, stage_pure_vars(fn, 0), tag + "_s0");
    // The reduction across the block's threads, as block_level does for a fused one. rfactor
    // first: the partials would otherwise inherit the update's block loops.
    // Several RVars (a group normalization's sums over the channels of a group and their planes):
    // fused, innermost first, into one walk over every point of a result.
    const auto rvars = fn.update(0).schedule().rvars();
    RVar r(rvars[0].var), ro(tag + "_ro"), ri(tag + "_ri");
    for (size_t i = 1; i < rvars.size(); i++) {
        RVar fused(tag + "_rf" + std::to_string(i));
        w.fuse({f, 0}, r, RVar(rvars[i].var), fused);
        r = fused;
    }
    Var lane(tag + "_lane");
    w.split({f, 0}, r, ro, ri, 256, TailStrategy::GuardWithIf);
    Func partial = w.rfactor({f, 0}, ri, lane);
    const VarOrRVar at = gpu_blocks_over(w, {f, 0}, stage_pure_vars(fn, 1), tag + "_s1");
    w.compute_at(partial, f, at);  // alone in its block: nothing to overlap
    w.gpu_threads({partial}, lane);
    w.gpu_threads({partial, 0}, lane);
}

}  // namespace solder
