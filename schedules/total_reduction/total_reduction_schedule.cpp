#include "schedules/total_reduction/total_reduction_schedule.h"

#include "schedules/block_reduction/block_reduction_schedule.h"
#include "schedules/writer/reduction_walk.h"

namespace solder {
using namespace Halide;

void schedule_total_reduction(ScheduleWriter &w, Func f, const Target &target, int sliced_rvar, int64_t slice_rows,
                              int lanes, int lanes_x, bool unroll_inner) {
    const std::string tag = f.name();
    const auto rvars = f.function().update(0).schedule().rvars();  // innermost first
    // The slices: runs of the cut RVar, each one block's (a block reduction of its own, walking the
    // RVars outside the cut as well).
    const auto &cut = rvars[size_t(sliced_rvar)];
    RVar outer(cut.var), so(tag + "_so"), si(tag + "_si");
    Var slice(tag + "_slice");
    w.split({f, 0}, outer, so, si, int(slice_rows), TailStrategy::GuardWithIf);
    Func partials = w.rfactor({f, 0}, so, slice);
    // A Tuple's slices add their lanes' partials in one thread: with the second level of partials
    // as well, each slice of a minimum-and-maximum pair came out as the identity on OpenCL
    // (docs/halide-21-notes.md).
    const bool tuple = f.function().values().size() > 1;
    schedule_block_reduction(w, partials, target, lanes, lanes_x, unroll_inner, !tuple);
    at_least_one_slice(w, partials, slice.name(), cut.extent, slice_rows);
    // The partials' sum: one block, as a block reduction of one result.
    schedule_block_reduction(w, f, target, kTotalFinalLanes);
}

void schedule_total_reduction_lane_results(ScheduleWriter &w, Func f, const Target &target, int sliced_rvar,
                                           int64_t slice_rows, int lanes, int threads, int sliced_rvar2,
                                           int64_t slice_rows2) {
    const std::string tag = f.name();
    const auto rvars = f.function().update(0).schedule().rvars();  // innermost first
    // The innermost RVar's steps across `lanes` threads, its outer part walked by each; the slices
    // are runs of the cut RVar (of that outer part, for a 1-D RDom).
    RVar r0(rvars[0].var), r0o(tag + "_r0o"), r0i(tag + "_r0i");
    w.split({f, 0}, r0, r0o, r0i, lanes, TailStrategy::GuardWithIf);
    const RVar outer = rvars.size() == 1 ? r0o : RVar(rvars[size_t(sliced_rvar)].var);
    RVar so(tag + "_so"), si(tag + "_si");
    w.split({f, 0}, outer, so, si, int(slice_rows), TailStrategy::GuardWithIf);
    Var lane(tag + "_lane"), slice(tag + "_slice"), slice2(tag + "_slice2");
    const bool second = sliced_rvar2 >= 0 && rvars.size() > 1;
    RVar so2(tag + "_so2"), si2(tag + "_si2");
    if (second)
        w.split({f, 0}, RVar(rvars[size_t(sliced_rvar2)].var), so2, si2, int(slice_rows2), TailStrategy::GuardWithIf);
    Func partials = second ? w.rfactor({f, 0}, {{r0i, lane}, {so, slice}, {so2, slice2}})
                           : w.rfactor({f, 0}, {{r0i, lane}, {so, slice}});
    // The partials written by a copy whose threads each compute theirs in registers (computed at
    // the thread: one point each), not by an update whose every step adds to global memory.
    // (A global wrapper: the Func's own block reduction below reads the partials through
    // another rfactor's intermediate.)
    Func copy = w.in(partials, {});
    w.compute_root(copy);
    at_least_one_slice(w, partials, slice.name(),
                       rvars.size() == 1 ? (rvars[0].extent + Expr(lanes - 1)) / Expr(lanes)
                                         : rvars[size_t(sliced_rvar)].extent,
                       slice_rows);
    if (second) at_least_one_slice(w, partials, slice2.name(), rvars[size_t(sliced_rvar2)].extent, slice_rows2);
    // Threads along the results' innermost dim, then the lanes, then the results' other dims:
    // thread t reads the element t of a run of the input where the results' dim is its innermost
    // (an interleaved image's channels), so a warp's loads are contiguous (the other dims'
    // reads, a covariance's second channel, are the same elements again). Cut into blocks of
    // `threads`: more results at run time than at the estimates take more blocks, not more
    // threads.
    const std::vector<Var> cv = copy.args();  // the results' dims, then lane and the slices
    const size_t slice_dims = second ? 2 : 1, lane_dim = cv.size() - 1 - slice_dims;
    const StageRef st{copy};
    VarOrRVar t = Var(tag + "_tl");
    w.fuse(st, cv[0], cv[lane_dim], t.var);
    for (size_t i = 1; i < lane_dim; i++) {
        Var fused(tag + "_pr" + std::to_string(i));
        w.fuse(st, t, cv[i], fused);
        t = fused;
    }
    Var tb(tag + "_tb"), tt(tag + "_tt");
    w.split(st, t, tb, tt, threads, TailStrategy::GuardWithIf);
    std::vector<VarOrRVar> order{tt, tb};
    for (size_t i = lane_dim + 1; i < cv.size(); i++) order.push_back(cv[i]);
    w.reorder(st, order);
    w.gpu_threads(st, tt);
    w.gpu_blocks(st, tb);
    for (size_t i = lane_dim + 1; i < cv.size(); i++) w.gpu_blocks(st, cv[i]);
    w.compute_at(partials, copy, tt);
    const auto walk = partials.function().update(0).schedule().rvars();
    // Each thread's walk unrolled, its loads in flight together.
    const Expr inner_steps = rvars.size() == 1 ? Expr(int(slice_rows)) : (rvars[0].extent + lanes - 1) / lanes;
    unroll_walk(w, {partials, 0}, RVar(walk[0].var), inner_steps);
    // The partials' sum (every lane's of every slice: 27648 per result for a 4K image's channel
    // means): one block per result. (A total reduction of its own, 16 slices' partials per block
    // first, cut that kernel time from 44.7 to 6.7 us on the H200, but its two more launches and
    // one more buffer made the whole pipeline 15 us slower.)
    schedule_block_reduction(w, f, target, kTotalFinalLanes);
}

}  // namespace solder
