// The block-reduction template's Halide half.
#pragma once
#include <string>
#include <vector>

#include "Halide.h"
#include "schedules/writer/schedule_writer.h"

namespace solder {

// Block-reduction template for a reduction alone in its kernel along the innermost dim it reads:
// one block per result, the reduction split across `lanes` threads (rfactor), their partials summed
// 16 at a time (64 lanes or more), then by one thread. Falls back to the unfused kernel where it
// does not apply (host).
// With `lanes_x` > 0 (several RVars) the innermost RVar is split over lanes_x threads (thread x)
// and the next over lanes / lanes_x (thread y), and each thread walks the rest: no point's RVars
// are found by dividing by an extent (BlockReductionParams::lanes_x).
// `unroll_inner`: each thread's walk is unrolled along the innermost RVar, else along the next.
// `second_level` false: the lanes' partials are added by one thread, not 16 at a time first.
// Updates after the first that rewrite each point in place (reduction_then_refinements): each a
// launch of kRefinementThreads threads over the innermost pure dim.
constexpr int kRefinementThreads = 256;
void schedule_block_reduction(ScheduleWriter &w, Halide::Func f, const Halide::Target &target, int lanes = 256,
                              int lanes_x = 0, bool unroll_inner = false, bool second_level = true);

// The lanes along the innermost RVar for a block reduction over RVars of `extents` (at the
// estimates, innermost first) where `fused_walk_divides` (several RVars, some extent known only at
// run time): the smallest power of two that covers that RVar, at most `lanes`; 0 (one fused walk)
// otherwise.
int block_reduction_lanes_x(const std::vector<int64_t> &extents, bool fused_walk_divides, int lanes);

// The second level's partials of a block reduction over `lanes` threads: 16 where each sums at least
// 4 of the first level's (64 lanes or more), else none. The schedule and the planned launch's shared
// memory both follow it.
inline int block_reduction_second_partials(int lanes) { return lanes >= 4 * 16 ? 16 : 0; }

}  // namespace solder
