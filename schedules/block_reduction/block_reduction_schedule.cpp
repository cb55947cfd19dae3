#include "schedules/block_reduction/block_reduction_schedule.h"

#include <algorithm>
#include <set>

#include "autosched/model/pipeline_funcs.h"
#include "schedules/writer/schedule_writer.h"
#include "schedules/unfused/unfused.h"
#include "schedules/writer/block_reduce.h"
#include "schedules/writer/reduction_walk.h"

namespace solder {
using namespace Halide;

void schedule_block_reduction(ScheduleWriter &w, Func f, const Target &target, int lanes) {
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
    Expr extent = rvars[0].extent;
    RVar r(rvars[0].var), ro(tag + "_ro"), ri(tag + "_ri");
    for (size_t i = 1; i < rvars.size(); i++) {
        RVar fused(tag + "_rf" + std::to_string(i));
        w.fuse({f, 0}, r, RVar(rvars[i].var), fused);
        extent = extent * rvars[i].extent;
        r = fused;
    }
    Var lane(tag + "_lane"), lane2(tag + "_lane2");
    w.split({f, 0}, r, ro, ri, lanes, TailStrategy::GuardWithIf);
    Func partial = w.rfactor({f, 0}, ri, lane);
    // The partials (256) summed by 16 threads of 16 each, then the 16 by one thread: one thread
    // adding all 256 is a dependent chain of shared-memory loads per block. (Both rfactors before
    // the block loops, as above.)
    Func partial2;
    RVar r2o(tag + "_r2o"), r2i(tag + "_r2i");
    const auto left = fn.update(0).schedule().rvars();
    if (const int second = block_reduction_second_partials(lanes); left.size() == 1 && second > 0) {
        w.split({f, 0}, RVar(left[0].var), r2o, r2i, second, TailStrategy::GuardWithIf);
        partial2 = w.rfactor({f, 0}, r2i, lane2);
    }
    const VarOrRVar at = gpu_blocks_over(w, {f, 0}, stage_pure_vars(fn, 1), tag + "_s1");
    w.compute_at(partial, f, at);  // alone in its block: nothing to overlap
    w.gpu_threads({partial}, lane);
    w.gpu_threads({partial, 0}, lane);
    // Each thread walks its strided share inside its own thread loop, unrolled so that its loads
    // are in flight together: walked one load at a time, the H100 ran these kernels at 45% of
    // DRAM's peak (int8_quant's row maxima, layernorm_bwd's statistics).
    w.reorder({partial, 0}, {ro, lane});
    unroll_walk(w, {partial, 0}, ro, (extent + lanes - 1) / lanes);
    if (partial2.defined()) {
        w.compute_at(partial2, f, at);
        w.gpu_threads({partial2}, lane2);
        w.gpu_threads({partial2, 0}, lane2);
        w.reorder({partial2, 0}, {r2o, lane2});
    }
}

}  // namespace solder
