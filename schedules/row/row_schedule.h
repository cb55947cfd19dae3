// The row template's Halide half (schedules/row/row.h is its planning half).
#pragma once
#include <string>
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
    int64_t rows = 1;  // rows of it one block loads (its second dim follows the root's rows)
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
    int64_t row_extent = 0;                              // with warps: the root's innermost extent
    std::vector<std::pair<int, int64_t>> unrolled_dims;  // inner dims of the root unrolled in each thread, extents
};
// `at_block_row_dims`: with several rows per block, each at_block Func's pure var that follows the
// root's rows (the planner finds it by bounds; names need not match the root's), empty if none.
// `at_block_thread_dims`: each one's pure var its threads cover (FuncPlan::thread_dim), empty for
// its first; `at_block_thread_extents`: its extent per block along that var (FuncPlan::thread_extent).
// `side`: outputs over the root's block dims (KernelPlan::side, GPU only) that its blocks write too,
// fused with the root at the block loop (compute_with), from the Funcs the block computes.
// `shared`: reductions among `at_block` that other kernels read too, written likewise for them once
// every kernel is scheduled (schedules/row/shared_reductions.h).
void schedule_row_kernel(ScheduleWriter &w, Halide::Func root, const RowShape &shape,
                         const std::vector<Halide::Func> &at_block, const std::vector<int64_t> &at_block_points,
                         const std::vector<std::string> &at_block_row_dims,
                         const std::vector<std::string> &at_block_thread_dims,
                         const std::vector<int64_t> &at_block_thread_extents, const std::vector<StagedRow> &staged,
                         const Halide::Target &target, const std::vector<Halide::Func> &side = {},
                         const std::vector<Halide::Func> &shared = {});

// Side output `s` over `root`'s block dims, stored, laid out and named as root's block loops and
// fused with them at `at` (compute_with): the rows of a block that owns `rows` as thread x, else
// one thread of the block. Nothing in root's kernel may read it (Halide fuses no Func with one that
// reads it).
void schedule_side_output(ScheduleWriter &w, Halide::Func root, Halide::Func s, int rows, const Halide::VarOrRVar &at);

}  // namespace solder
