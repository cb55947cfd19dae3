#include "schedules/block_reduction/block_reduction_schedule.h"

#include <algorithm>
#include <optional>
#include <set>

#include "autosched/model/generic_reason.h"
#include "autosched/model/pipeline_funcs.h"
#include "schedules/writer/schedule_writer.h"
#include "schedules/unfused/unfused.h"
#include "schedules/writer/block_reduce.h"
#include "schedules/writer/reduction_walk.h"

namespace solder {
using namespace Halide;

int block_reduction_lanes_x(const std::vector<int64_t> &extents, bool fused_walk_divides, int lanes) {
    if (!fused_walk_divides || extents.size() < 2) return 0;
    int x = 1;
    while (x < lanes && x < extents[0]) x *= 2;
    return x;
}

namespace {

// The 2-D lanes of BlockReductionParams::lanes_x: the innermost RVar over `lanes_x` threads, the
// next over `lanes` / lanes_x, each thread walking the rest of both and every outer RVar, unrolled
// along the innermost RVar (`unroll_inner`: rows of several strides of lanes) or the next (a
// 64-wide plane: each thread's rows in flight together). Returns the partials; the reduction's
// own RVars over them are fused into one (constant extents: the division is a shift), for the
// second level: `over_lanes`.
Func two_d_lanes(ScheduleWriter &w, Func f, int lanes, int lanes_x, bool unroll_inner, const Var &lane,
                 const Var &lane_y, std::optional<RVar> *over_lanes) {
    const std::string tag = f.name();
    const auto rvars = f.function().update(0).schedule().rvars();
    const int lanes_y = lanes / lanes_x;
    RVar r0(rvars[0].var), r1(rvars[1].var);
    RVar r0o(tag + "_r0o"), r0i(tag + "_r0i"), r1o(tag + "_r1o"), r1i(tag + "_r1i");
    w.split({f, 0}, r0, r0o, r0i, lanes_x, TailStrategy::GuardWithIf);
    if (lanes_y > 1) w.split({f, 0}, r1, r1o, r1i, lanes_y, TailStrategy::GuardWithIf);
    Func partial = lanes_y > 1 ? w.rfactor({f, 0}, {{r0i, lane}, {r1i, lane_y}}) : w.rfactor({f, 0}, r0i, lane);
    const RVar walk_y = lanes_y > 1 ? r1o : r1;
    std::vector<VarOrRVar> order{unroll_inner ? r0o : walk_y, unroll_inner ? walk_y : r0o};
    for (size_t i = 2; i < rvars.size(); i++) order.push_back(RVar(rvars[i].var));
    order.push_back(lane);
    if (lanes_y > 1) order.push_back(lane_y);
    auto lane_threads = [&](const StageRef &st) {
        if (lanes_y > 1)
            w.gpu_threads(st, lane, lane_y);
        else
            w.gpu_threads(st, lane);
    };
    lane_threads({partial});
    w.reorder({partial, 0}, order);
    lane_threads({partial, 0});
    unroll_walk(w, {partial, 0}, unroll_inner ? r0o : walk_y,
                unroll_inner ? (rvars[0].extent + lanes_x - 1) / lanes_x : (rvars[1].extent + lanes_y - 1) / lanes_y);
    const auto left = f.function().update(0).schedule().rvars();
    if (left.size() == 2) w.fuse({f, 0}, RVar(left[0].var), RVar(left[1].var), RVar(tag + "_lanes"));
    *over_lanes = left.size() == 2 ? RVar(tag + "_lanes") : RVar(left[0].var);
    return partial;
}

}  // namespace

void schedule_block_reduction(ScheduleWriter &w, Func f, const Target &target, int lanes, int lanes_x,
                              bool unroll_inner, bool second_level) {
    auto fn = f.function();
    const bool refinements = fn.updates().size() > 1 && autosched::reduction_then_refinements(fn);
    if (!is_gpu_target(target) || (fn.updates().size() != 1 && !refinements) ||
        fn.update(0).schedule().rvars().empty()) {
        schedule_as_own_kernel(w, f, target);
        return;
    }
    const std::string tag = f.name();
    // One block per result (a 0-d Func, the last step of a total reduction: one block, the loop
    // Halide keeps outside every stage's loops). Both stages in one launch where the update is
    // the only one and the Func is no output: the Func computed in each block of a copy every
    // reader reads (Func::in), the block's result stored by the copy. At root, its pure stage was a launch of its own, a thread
    // per block: group_norm's two sums took 2.5 us each for it on the H200.
    const bool scalar = fn.args().empty();
    // (Not for a pipeline output: its callers are none, and the copy would be computed nowhere.)
    const bool in_copy = !refinements && !w.is_output(f);
    Func copy;
    std::optional<VarOrRVar> copy_block;
    Var block(tag + "_block");
    if (in_copy) {
        copy = w.in(f, {});
        w.compute_root(copy);
        if (scalar) {
            w.split({copy}, Var::outermost(), Var::outermost(), block, 1, TailStrategy::GuardWithIf);
            w.gpu_blocks({copy}, block);
            copy_block = block;
        } else {
            copy_block = gpu_blocks_over(w, {copy}, stage_pure_vars(copy.function(), 0), tag + "_b");
        }
        w.compute_at(f, copy, *copy_block);
    } else {
        w.compute_root(f);
        if (scalar)
            w.gpu_single_thread({f});
        else
            gpu_blocks_over(w, {f}, stage_pure_vars(fn, 0), tag + "_s0");
    }
    // The reduction across the block's threads, as block_level does for a fused one. rfactor
    // first: the partials would otherwise inherit the update's block loops.
    // Several RVars (a group normalization's sums over the channels of a group and their planes):
    // fused, innermost first, into one walk over every point of a result.
    const auto rvars = fn.update(0).schedule().rvars();
    Expr extent = rvars[0].extent;
    RVar r(rvars[0].var), ro(tag + "_ro"), ri(tag + "_ri");
    Var lane(tag + "_lane"), lane2(tag + "_lane2"), lane_y(tag + "_lane_y");
    const bool two_d = lanes_x > 0 && rvars.size() >= 2;
    Func partial;
    std::optional<RVar> over_lanes;  // the update's RVar over the partials
    if (two_d) {
        partial = two_d_lanes(w, f, lanes, lanes_x, unroll_inner, lane, lane_y, &over_lanes);
    } else {
        for (size_t i = 1; i < rvars.size(); i++) {
            RVar fused(tag + "_rf" + std::to_string(i));
            w.fuse({f, 0}, r, RVar(rvars[i].var), fused);
            extent = extent * rvars[i].extent;
            r = fused;
        }
        w.split({f, 0}, r, ro, ri, lanes, TailStrategy::GuardWithIf);
        partial = w.rfactor({f, 0}, ri, lane);
        const auto left = fn.update(0).schedule().rvars();
        if (left.size() == 1) over_lanes = RVar(left[0].var);
    }
    // The partials (256) summed by 16 threads of 16 each, then the 16 by one thread: one thread
    // adding all 256 is a dependent chain of shared-memory loads per block. (Both rfactors before
    // the block loops, as above.)
    Func partial2;
    RVar r2o(tag + "_r2o"), r2i(tag + "_r2i");
    if (const int second = block_reduction_second_partials(lanes); second_level && over_lanes && second > 0) {
        w.split({f, 0}, *over_lanes, r2o, r2i, second, TailStrategy::GuardWithIf);
        partial2 = w.rfactor({f, 0}, r2i, lane2);
    }
    if (scalar && !in_copy) {
        w.split({f, 0}, Var::outermost(), Var::outermost(), block, 1, TailStrategy::GuardWithIf);
        w.gpu_blocks({f, 0}, block);
    }
    const VarOrRVar at = in_copy  ? *copy_block
                         : scalar ? VarOrRVar(block)
                                  : gpu_blocks_over(w, {f, 0}, stage_pure_vars(fn, 1), tag + "_s1");
    // The partials: in the block (alone in it: nothing to overlap), at the outermost loop of the
    // update where the block is the copy's (Halide allows no loop outside the Func that reads them).
    const VarOrRVar partials_at = in_copy ? VarOrRVar(Var::outermost()) : at;
    w.compute_at(partial, f, partials_at);
    if (!two_d) {
        w.gpu_threads({partial}, lane);
        w.gpu_threads({partial, 0}, lane);
        // Each thread walks its strided share inside its own thread loop, unrolled so that its
        // loads are in flight together: walked one load at a time, the H100 ran these kernels at
        // 45% of DRAM's peak (int8_quant's row maxima, layernorm_bwd's statistics).
        w.reorder({partial, 0}, {ro, lane});
        unroll_walk(w, {partial, 0}, ro, (extent + lanes - 1) / lanes);
    }
    if (partial2.defined()) {
        w.compute_at(partial2, f, partials_at);
        w.gpu_threads({partial2}, lane2);
        w.gpu_threads({partial2, 0}, lane2);
        w.reorder({partial2, 0}, {r2o, lane2});
    }
    // Refinements in place after the reduction (autosched/model/generic_reason.h:
    // reduction_then_refinements): kRefinementThreads threads over the innermost pure dim each.
    for (int u = 1; refinements && u < int(fn.updates().size()); u++) {
        const std::vector<VarOrRVar> pure = stage_pure_vars(fn, u + 1);
        const std::string rtag = tag + "_u" + std::to_string(u);
        Var bo(rtag + "_bo"), bt(rtag + "_bt");
        w.split({f, u}, pure[0], bo, bt, kRefinementThreads, TailStrategy::GuardWithIf);
        std::vector<VarOrRVar> blocks{bo};
        blocks.insert(blocks.end(), pure.begin() + 1, pure.end());
        w.gpu_threads({f, u}, bt);
        gpu_blocks_over(w, {f, u}, blocks, rtag, 1);
    }
}

}  // namespace solder
