// The reduction tile template's Halide half (schedules/reduction_tile/reduction_tile.h is its
// planning half).
#pragma once
#include <optional>
#include <vector>

#include "Halide.h"
#include "schedules/writer/schedule_writer.h"

namespace solder {

// `root` in 32 x 32 tiles, one block of 32 x 8 threads each (4 rows per thread); `reduction`
// computed per tile, its update's one RVar loop outermost in the block, each step dealt to the
// threads as the tile; `per_tile` Funcs computed per tile before that loop, `per_step` (if any) per
// tile at each step of it. Every tail guarded (regions per tile have run-time extents).
void schedule_reduction_tile_kernel(ScheduleWriter &w, Halide::Func root, Halide::Func reduction,
                                    const std::vector<Halide::Func> &per_tile, std::optional<Halide::Func> per_step);

}  // namespace solder
