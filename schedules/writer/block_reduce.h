// Reductions computed inside a kernel's blocks, shared by the templates that fuse them (row, block
// reduction, inner-outer, stencil tiles' allocations): lanes per row, partials in shared memory or
// registers, the tree that sums them, and grid dims over the rest.
#pragma once
#include <string>
#include <vector>

#include "Halide.h"
#include "schedules/writer/schedule_writer.h"

namespace solder {

// Marks dims as GPU blocks (gpu_blocks_over, the first `tile_dims` tile counts). Returns the
// innermost block loop, where Funcs computed per block go.
Halide::Var blocks_over(ScheduleWriter &w, const StageRef &s, const std::vector<Halide::VarOrRVar> &dims,
                        const std::string &tag, int tile_dims = 0);
// Threads a block may have (DeviceProfile::max_threads_per_block): a Func computed per block with
// more points than this has its innermost dim laid over the block's threads in strips.
constexpr int64_t kMaxBlockThreads = 1024;

// Whether the Funcs computed in one block mix element sizes; then each allocation is padded to
// whole 8-byte words (Halide issue 6803, see block_reduce.cpp).
bool mixed_element_sizes(const std::vector<Halide::Func> &fs);
void pad_block_allocation(ScheduleWriter &w, Halide::Func f, bool mixed);

// What block_level did to a reduction it split across the block's lanes (f undefined: none).
struct LaneSplit {
    Halide::Func f, partial, partial2;
    // With exact lanes (the inner-outer template): `partial` is a shared-memory copy of `walked`,
    // which each thread sums in its registers.
    Halide::Func walked;
    int64_t extent = 0;  // the row length (0: not a constant)
    int lanes = 0;
};

// Computes `f` per block of `root` at `at`, and on a GPU splits its reduction across the block's
// lanes (block_reduce.cpp says how). `thread_extent` > 0: the Func's extent per block along the dim
// its threads cover, which then get that constant count (see block_reduce.cpp); 0: threaded whole.
LaneSplit block_level(ScheduleWriter &w, Halide::Func f, int64_t points, int rows, int max_lanes,
                      const std::string &row_dim, const std::string &thread_dim, Halide::Func root,
                      const Halide::Var &at, const Halide::Target &t, bool mixed, int warps = 0, int vector = 1,
                      int exact_lanes = 0, int64_t thread_extent = 0);
// Independent lane-split reductions of one shape in one loop nest (compute_with).
void fuse_lane_splits(ScheduleWriter &w, const std::vector<LaneSplit> &splits);

// The row reductions of a block that owns `rows` rows (`row_dims[i]`: fs[i]'s pure var that
// follows them), for templates that lay out their own root (schedules/inner_outer/inner_outer_schedule.h): each
// reduction over a row split across exactly `lanes` threads (thread x) per row (thread y), summed
// by the shared-memory tree; independent ones of one shape in one loop nest.
void reduce_rows_in_block(ScheduleWriter &w, const std::vector<Halide::Func> &fs,
                          const std::vector<std::string> &row_dims, int rows, int lanes, Halide::Func root,
                          const Halide::Var &at, const Halide::Target &target);

}  // namespace solder
