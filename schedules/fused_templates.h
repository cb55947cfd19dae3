// GPU (and host) schedule templates a Solder plan is realized with. Each takes a kernel root and
// the Funcs the plan computes inside it; everything else the root uses stays inlined.
#pragma once
#include <vector>

#include "Halide.h"
#include "schedules/writer/schedule_writer.h"

namespace solder {

// Row template (normalizations, softmax, the row reductions of layer-norm backward): one block owns
// the root's `inner_dims` innermost dims; threads stride the innermost; `at_block` Funcs (reductions)
// are computed once per block, in shared memory.
// On a GPU, `vector_width` > 1 makes each thread write that many neighbours at once (the planner
// asks for it only when 256 x width divides the innermost extent).
// `staged` (wrappers made with ScheduleWriter::in) are loaded once per block into shared memory,
// with 16-byte loads where 256 x the vector divides `row_extent`, the innermost extent one block needs.
struct StagedRow {
    Halide::Func func;
    int64_t row_extent = 0;
};
// `rows_per_block` > 1 (GPU): a block owns that many rows of the dim after the inner ones, each
// reduction split over 256 / rows threads per row (fewer for a short row: one thread per
// `vector_width` elements: `row_threads` > 0), all rows at once.
// `unrolled_dims`: inner dims between the innermost and the rows, with constant extents up to
// kMaxUnrolledRowDim (the planner knows the extents), unrolled in each thread: a select over such
// a dim (a stack or cat) then keeps one branch per iteration instead of computing every branch
// for each element.
constexpr int64_t kMaxUnrolledRowDim = 16;
struct RowShape {
    int inner_dims = 1;
    int vector_width = 1;
    int rows_per_block = 1;
    int row_threads = 0;
    // > 0 (one block per row, every Func computed per block one value): the row is walked by that
    // many warps, one `vector_width` access per lane per step, and on CUDA each reduction is summed
    // with warp shuffles (schedules/writer/warp_reduction.h); elsewhere by the shared-memory tree over the
    // same 32 x warps threads.
    int warps = 0;
    int64_t row_extent = 0;  // with warps: the root's innermost extent
    std::vector<std::pair<int, int64_t>> unrolled_dims;  // inner dims of the root unrolled in each thread, extents
};
// `at_block_row_dims`: with several rows per block, each at_block Func's pure var that follows the
// root's rows (the planner finds it by bounds; names need not match the root's), empty if none.
void schedule_row_kernel(ScheduleWriter &w, Halide::Func root, const RowShape &shape,
                         const std::vector<Halide::Func> &at_block, const std::vector<int64_t> &at_block_points,
                         const std::vector<std::string> &at_block_row_dims, const std::vector<StagedRow> &staged,
                         const Halide::Target &target);
// The row reductions of a block that owns `rows` rows (`row_dims[i]`: fs[i]'s pure var that
// follows them), for templates that lay out their own root (schedules/inner_outer.h): each
// reduction over a row split across exactly `lanes` threads (thread x) per row (thread y), summed
// by the shared-memory tree; independent ones of one shape in one loop nest.
void reduce_rows_in_block(ScheduleWriter &w, const std::vector<Halide::Func> &fs, const std::vector<std::string> &row_dims,
                          int rows, int lanes, Halide::Func root, const Halide::Var &at, const Halide::Target &target);

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
void schedule_stencil_kernel(ScheduleWriter &w, Halide::Func root, int inner_dims, bool whole_tiles, bool root_is_output,
                             const std::vector<Halide::Func> &at_tile, const Halide::Target &target);

// Pointwise template: 256-thread blocks along the innermost dim, outer dims as grid dims; with
// `vector_width` > 1 (GPU, pure Funcs, width dividing the innermost extent) each thread handles
// that many neighbours with wide loads and stores. Otherwise the unfused schedule's own kernel.
void schedule_pointwise_kernel(ScheduleWriter &w, Halide::Func root, int vector_width, const Halide::Target &target);

// Block-reduction template for a reduction alone in its kernel (SOLDER_ENABLE=single_kernel_groups):
// one block per result, the reduction split across 256 threads (rfactor), then one thread adds the
// partials. Falls back to the unfused kernel where it does not apply (host, several RVars).
void schedule_block_reduction(ScheduleWriter &w, Halide::Func f, const Halide::Target &target);

// Horizontal template: independent 1-D roots in one launch per stage. Each stage (a reduction's
// init and update, or the one pure definition) is split the same way and fused into the first
// root's same stage at the block loop (compute_with); blocks past a root's end skip it. The roots
// must have as many stages, each writing its pure var, named alike in all (the planner checks).
// `adds_partials[i]`: roots[i] is a split-K root that adds its partials (schedules/split_k.h).
void schedule_horizontal_1d(ScheduleWriter &w, const std::vector<Halide::Func> &roots, const Halide::Target &target,
                            const std::vector<bool> &adds_partials = {});

}  // namespace solder
