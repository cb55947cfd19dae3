// The total reduction template's Halide half.
#pragma once
#include <cstdint>

#include "Halide.h"
#include "schedules/writer/schedule_writer.h"

namespace solder {

// Threads of the block that adds the slices' partials of a total reduction.
constexpr int kTotalFinalLanes = 256;

// A 0-d reduction over many points (an image's sum, its maximum) on the GPU, in two launches of
// its update: its RVar `sliced_rvar` (innermost first; the outermost, or one with more steps where
// the outermost has few) cut into slices of `slice_rows`, each slice's points, the RVars outside
// the cut walked too, reduced by one block (rfactor, then schedule_block_reduction with `lanes`,
// `lanes_x`, `unroll_inner`) into a partial in global memory; then one block adds the partials,
// kTotalFinalLanes threads each adding a strided share into shared memory and one thread those.
// The partials have one slice dim whatever RVar is cut.
void schedule_total_reduction(ScheduleWriter &w, Halide::Func f, const Halide::Target &target, int sliced_rvar,
                              int64_t slice_rows, int lanes, int lanes_x, bool unroll_inner);
// The same where the results are few and read along the input's innermost dim
// (TotalReductionParams::lane_results): the innermost RVar split across `lanes`, the RVar
// `sliced_rvar` (of several; for a 1-D RDom, the lanes' walk of it) cut into slices of `slice_rows`,
// both factored out into partials (result, lane, slice) whose blocks
// hold every result of a slice, `threads` each, along the results and then the lanes, computed by
// a copy in each thread's registers; then one block per result adds its partials. With
// `sliced_rvar2` (-1 none), that RVar is cut into slices of `slice_rows2` too: partials (result,
// lane, slice, slice2), a block for each pair of slices.
void schedule_total_reduction_lane_results(ScheduleWriter &w, Halide::Func f, const Halide::Target &target,
                                           int sliced_rvar, int64_t slice_rows, int lanes, int threads,
                                           int sliced_rvar2 = -1, int64_t slice_rows2 = 1);

}  // namespace solder
