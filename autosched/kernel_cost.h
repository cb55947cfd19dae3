// The cost model for one kernel: given its root and the Funcs computed inside it, the template and
// block shape that move the fewest bytes (then do the least recompute), the bytes it reads from
// global memory (stencil halos and broadcasts re-read per block, unless L2 holds the tensor), its
// arithmetic, and whether its fused reductions fit in shared memory.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "autosched/model/device_profile.h"
#include "autosched/model/func_graph.h"
#include "autosched/planner.h"

namespace solder::autosched {

struct KernelChoice {
    std::string template_name = "pointwise";
    int inner_dims = 1;
    int64_t blocks = 1;
    int64_t bytes_read = 0;
    double flops = 0;
    std::vector<int> members;  // non-root nodes computed in this kernel
    bool ok = true;
    int offender = -1;         // reduction that did not fit, if !ok
    int64_t offender_bytes = 0;
    // Split-K: `split_func`, the kernel's one heavy reduction, is summed in `split_k` slices by
    // launches of `split_blocks` blocks into partials (`split_bytes`: zeroed, written, and read
    // back by the root's blocks, which add them). -1/0: none.
    int split_func = -1;
    int64_t split_k = 0, split_blocks = 0, split_bytes = 0;

    int launches() const { return split_func >= 0 ? 3 : 1; }
};

// Threads of the split-K partials' blocks along the innermost pure dim.
constexpr int64_t kSplitThreads = 256;
// Rows each split-K slice sums at least (fewer: the partials outweigh the work they spread).
constexpr int64_t kMinSliceRows = 64;

KernelChoice choose_kernel(const FuncGraph &g, const PlannerOptions &opt, int root, const std::vector<int> &members);
// The region of every node one block of a row kernel computes (empty: not needed), for the
// per-block sizes the templates need (how big a reduction's block-level partials would be).
// `rows` > 1: a block that owns that many rows of the root's dim after the inner ones.
std::vector<Region> row_block_regions(const FuncGraph &g, int root, const KernelChoice &kc, int64_t rows = 1);

// For a row kernel whose blocks own several rows: each Func the plan computes per block of root
// `root` gets FuncPlan::row_dim, its dim that follows the root's rows (its region grows when a
// block owns two rows instead of one): the templates lay their threads along that dim as they do
// the root's rows. Found by bounds, not by names, which need not match between a reduction and
// its consumer.
void assign_row_dims(const FuncGraph &g, int root, const KernelChoice &kc, Plan &plan);

// Roofline time of one kernel: max(bytes / bandwidth, flops / peak) + one launch. A kernel of fewer
// blocks than the device needs to fill it (DeviceProfile::blocks_per_sm_to_fill) leaves bandwidth
// unused: its time grows by that ratio (blocks 0: not known, full).
double kernel_us(const DeviceProfile &d, int64_t bytes, double flops, int64_t blocks = 0);
// The time of a chosen kernel that writes `root_bytes`, split-K partials included.
double choice_us(const DeviceProfile &d, const KernelChoice &kc, int64_t root_bytes);

}  // namespace solder::autosched
