#include "schedules/total_reduction/total_reduction_schedule.h"

#include "schedules/block_reduction/block_reduction_schedule.h"

namespace solder {
using namespace Halide;

void schedule_total_reduction(ScheduleWriter &w, Func f, const Target &target, int64_t slice_rows, int lanes,
                              int lanes_x, bool unroll_inner) {
    const std::string tag = f.name();
    const auto rvars = f.function().update(0).schedule().rvars();  // innermost first
    // The slices: runs of the outermost RVar, each one block's (a block reduction of its own).
    RVar outer(rvars.back().var), so(tag + "_so"), si(tag + "_si");
    Var slice(tag + "_slice");
    w.split({f, 0}, outer, so, si, int(slice_rows), TailStrategy::GuardWithIf);
    Func partials = w.rfactor({f, 0}, so, slice);
    // A Tuple's slices add their lanes' partials in one thread: with the second level of partials
    // as well, each slice of a minimum-and-maximum pair came out as the identity on OpenCL
    // (docs/halide-21-notes.md).
    const bool tuple = f.function().values().size() > 1;
    schedule_block_reduction(w, partials, target, lanes, lanes_x, unroll_inner, !tuple);
    // The partials' sum: one block, as a block reduction of one result.
    schedule_block_reduction(w, f, target, kTotalFinalLanes);
}

}  // namespace solder
