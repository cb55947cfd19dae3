// The launches a kernel of the plan makes, at the planning estimates, as the templates lay them out
// on a GPU (autosched/model/device_limits.h checks them against the device's limits). Each template
// works out its own (KernelTemplate::launch_shapes); what several share is here: a Func in a kernel
// of its own, the split-K partials' launches, horizontal launches.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "autosched/model/device_limits.h"
#include "autosched/model/func_graph.h"
#include "autosched/model/kernel_choice.h"
#include "autosched/model/options.h"
#include "autosched/model/plan.h"

namespace solder::autosched {

struct ShapeContext {
    const FuncGraph &g;
    const Plan &plan;
    const PlannerOptions &opt;
    int root;
    GridMap grid;  // how the kernel's block dims map to the grid (Plan::grid_map)
    const FuncNode &root_node() const { return g.nodes[size_t(root)]; }
};

// "f", or "f.update(0)" for stage 1.
std::string stage_name(const FuncNode &n, int stage);
// The extents (innermost first) of the pure vars stage `stage` of `n` loops over in parallel.
std::vector<int64_t> stage_extents(const FuncNode &n, int stage);
// One stage laid out as schedules/unfused's own kernel: `threads` (256) along its innermost pure
// var, grid over the rest; one thread without pure vars.
LaunchShape own_kernel_stage(const FuncNode &n, int stage, GridMap grid, int threads = 256);
// A stage laid out in 2-D tiles of `tx` x `ty` threads over its two innermost pure dims (`e`, its
// extents innermost first), the tiles and any outer dims as the grid; `threads_1d` (0: 256) threads
// over a 1-D stage; one thread for none.
LaunchShape tiled_stage(const std::string &stage, std::vector<int64_t> e, int tx, int ty, int threads_1d, GridMap grid);
// A stage laid out by gpu_flat_over: its dims (`e`, extents innermost first) but the last
// `grid_dims` fused along `threads` threads, their blocks and those dims the grid.
LaunchShape flat_stage(const std::string &stage, const std::vector<int64_t> &e, int grid_dims, int threads,
                       GridMap grid);
// Every stage of `n` so (schedules/unfused's schedule_as_own_kernel).
std::vector<LaunchShape> own_kernel_shapes(const FuncNode &n, GridMap grid, int threads = 256);
// Threads per block along rows of `extent` points, `rows` of them, where each thread walks a serial
// loop (a scan's RVar, a reduction fused per point): 256 halved, down to a warp, while the blocks
// would be fewer than four per SM. With 2160 rows of a scan in blocks of 256, 9 of the H100's 132
// SMs would do all the work.
int threads_filling_sms(int64_t extent, int64_t rows, const DeviceProfile &d);
// The kernel's members and block shape as its choose step saw them (for per-block regions).
KernelChoice choice_of(const FuncGraph &g, const KernelPlan &k, int inner_dims);
// The Funcs the plan computes per block of kernel `k` (nodes).
std::vector<int> at_block_nodes(const ShapeContext &c, const KernelPlan &k);
// Bytes of an allocation of `extent0` x `rest` elements of `elem` bytes; where the Funcs of one block
// mix element sizes (`mixed`), its innermost extent padded to whole 8-byte words
// (schedules/writer/block_reduce.h, pad_block_allocation).
int64_t padded_bytes(int64_t extent0, int64_t rest, int64_t elem, bool mixed);
// Shared memory one block of kernel `k` takes for the Funcs the plan computes per block, at their
// regions per block (`per_block`).
int64_t block_shared_bytes(const ShapeContext &c, const KernelPlan &k, const std::vector<Region> &per_block,
                           bool mixed);
// The split-K partials' two launches (zeroing, sums) where kernel `k` launches them.
std::vector<LaunchShape> split_k_shapes(const ShapeContext &c, const KernelPlan &k);
// A horizontal kernel's launches: one per stage, its roots' blocks side by side along x.
std::vector<LaunchShape> horizontal_shapes(const ShapeContext &c, const KernelPlan &k);
// Every launch of kernel `k` (its template's, split-K's, or the horizontal ones).
std::vector<LaunchShape> kernel_launch_shapes(const ShapeContext &c, const KernelPlan &k);

}  // namespace solder::autosched
