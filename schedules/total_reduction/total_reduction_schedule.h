// The total reduction template's Halide half.
#pragma once
#include <cstdint>

#include "Halide.h"
#include "schedules/writer/schedule_writer.h"

namespace solder {

// Threads of the block that adds the slices' partials of a total reduction.
constexpr int kTotalFinalLanes = 256;

// A 0-d reduction over many points (an image's sum, its maximum) on the GPU, in two launches of
// its update: its outermost RVar cut into slices of `slice_rows`, each slice's points reduced by
// one block (rfactor, then schedule_block_reduction with `lanes`, `lanes_x`, `unroll_inner`) into
// a partial in global memory; then one block adds the partials, kTotalFinalLanes threads each
// adding a strided share into shared memory and one thread those.
void schedule_total_reduction(ScheduleWriter &w, Halide::Func f, const Halide::Target &target, int64_t slice_rows,
                              int lanes, int lanes_x, bool unroll_inner);

}  // namespace solder
