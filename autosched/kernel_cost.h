// The cost model for one kernel: given its root and the Funcs computed inside it, the template and
// block shape that move the fewest bytes (then do the least recompute), the bytes it reads from
// global memory (stencil halos and broadcasts re-read per block, unless L2 holds the tensor), its
// arithmetic, and whether its fused reductions fit in shared memory.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "autosched/device_profile.h"
#include "autosched/func_graph.h"
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
};

KernelChoice choose_kernel(const FuncGraph &g, const PlannerOptions &opt, int root, const std::vector<int> &members);
// The region of every node one block of a row kernel computes (empty: not needed), for the
// per-block sizes the templates need (how big a reduction's block-level partials would be).
std::vector<Region> row_block_regions(const FuncGraph &g, int root, const KernelChoice &kc);

// Roofline time of one kernel: max(bytes / bandwidth, flops / peak) + one launch.
double kernel_us(const DeviceProfile &d, int64_t bytes, double flops);

}  // namespace solder::autosched
