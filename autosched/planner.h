// Solder's fusion planner: analyses a pipeline (autosched/func_graph.h), chooses kernel roots,
// placements and tilings under the cost model, and returns a Plan (autosched/plan.h).
#pragma once
#include <set>
#include <string>

#include "autosched/device_profile.h"
#include "autosched/func_graph.h"
#include "autosched/plan.h"

namespace solder::autosched {

struct PlannerOptions {
    bool horizontal = true;   // merge independent 1-D pointwise kernels into one launch
    bool remat = true;        // recompute cheap Funcs in every kernel that uses them
    bool compute_at = true;   // fuse reductions and stencil producers into their consumer's blocks
    bool gpu = true;          // plan for a GPU (blocks) or the host (parallel loops)
    bool exact_search = true; // branch and bound after the greedy pass (autosched/search.h)
    // Row kernels load inputs that several stages read once per block into shared memory
    // (autosched/row_staging.h). Off by default: on the H100 the re-reads it saves hit in L1, and
    // rmsnorm, layernorm and softmax ran 0-4% slower with it (bench/RESULTS.md).
    bool stage_rows = false;
    int exact_max_free = 30;                 // optional roots the exact search takes; beyond: local search
    int64_t search_max_evaluations = 20000;  // partitions the search may cost in full
    int time_budget_ms = 1000;               // a safety net over the evaluation budget
    // A kernel that computes one Func alone, a reduction, may take a fused template: the block
    // reduction of the row template, its reduction split across the block's threads. Off by
    // default: alone, a reduction with many results per block is usually as fast per thread.
    bool single_kernel_groups = false;
    // Take a fusion that moves fewer bytes even where the cost model expects it to be slower
    // (SOLDER_ENABLE=fewest_bytes, `solder plan --enable fewest_bytes`): today only the inner-outer
    // kernel (autosched/inner_outer.h), which read nvfuser_2146's inputs once but ran slower on
    // the H100 than the two passes it replaces (bench/RESULTS.md).
    bool fewest_bytes = false;
    std::set<std::string> keep_unfused;  // Funcs always materialized (a debugging knob)
    DeviceProfile device;
};

Plan plan_pipeline(const FuncGraph &g, const PlannerOptions &opt, const std::string &app);

}  // namespace solder::autosched
