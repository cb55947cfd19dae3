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
void schedule_block_reduction(ScheduleWriter &w, Halide::Func f, const Halide::Target &target, int lanes = 256);

// The second level's partials of a block reduction over `lanes` threads: 16 where each sums at least
// 4 of the first level's (64 lanes or more), else none. The schedule and the planned launch's shared
// memory both follow it.
inline int block_reduction_second_partials(int lanes) { return lanes >= 4 * 16 ? 16 : 0; }

}  // namespace solder
