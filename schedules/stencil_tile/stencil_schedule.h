// The stencil-tile template's Halide half (schedules/stencil_tile/stencil_tile.h is its planning half).
#pragma once
#include <string>
#include <vector>

#include "Halide.h"
#include "schedules/writer/schedule_writer.h"

namespace solder {

// Stencil template (blur, unsharp, Harris): on a GPU, kStencilTileX x kStencilTileY tiles of the two
// innermost dims, one block of kStencilThreadsX x kStencilThreadsY threads each; `at_tile` Funcs
// (stencil producers) are computed per tile with their halo, in shared memory. Dims from 2 up to
// `inner_dims` loop inside each tile (few channels sharing the tile's producers); the rest are grid dims.
constexpr int kStencilTileX = 32, kStencilTileY = 32;
constexpr int kStencilThreadsX = 32, kStencilThreadsY = 8;
// `whole_tiles` (the planner knows the root spans a tile in both dims): edge tiles shift inwards,
// recomputing a few points, so that every tile has one constant shape. Guarded edge tiles have
// smaller producer regions, and Halide then sizes shared memory by evaluating every block's
// region on the host before each launch (50-80 us for a 4K image on the H100's host). Where the
// writer guards every tail (sizes known only at run time), whole tiles are a specialization on the
// output's extents (`root_is_output`), with guarded tiles beside it; a root that is no output
// keeps guarded tiles.
// `per_point`: reductions computed at each point of their reader (Halide's default place for a
// Func with updates), their steps of constant extent unrolled on a GPU (window_steps.h); those of
// them in `rows_per_thread`, read at the root's points only, computed per thread for its rows
// together instead (window_per_thread), so that the rows share their overlapping taps.
void schedule_stencil_kernel(ScheduleWriter &w, Halide::Func root, int inner_dims, bool whole_tiles,
                             bool root_is_output, const std::vector<Halide::Func> &at_tile,
                             const Halide::Target &target, const std::vector<std::string> &resampled = {},
                             const std::vector<Halide::Func> &per_point = {},
                             const std::vector<std::string> &rows_per_thread = {});

// A producer computed per tile whose region has run-time extents, dealt to the block's threads in
// columns of kStencilThreadsX and rows of kStencilThreadsY, each guarded (stencil_schedule.cpp).
void deal_rows_and_columns_to_threads(ScheduleWriter &w, const StageRef &f, bool unroll_turns);

}  // namespace solder
