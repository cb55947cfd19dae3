// Inner-outer fusion (nvFuser's InnerOuter persistent kernel): column sums computed in a row
// kernel's blocks. nvfuser_2146's two big kernels each read the same 235 MB of inputs: the
// row kernel (row sums, then the output rows) and the shared split-K launches of the four column
// sums. When a shared split-K group reduces over exactly the points a row kernel walks, the row
// kernel's blocks can sum the columns too: each block owns R rows, loads them once into shared
// memory (R rows of every full-size input: more than the 48 KB a launch gets without opting in),
// and after its rows writes one partial per column and reduction; the reductions' own kernels then
// only add the partials. Runs on the built plan after share_split_k and explains each group it
// cannot host; the planner keeps the result when the whole plan costs less (planner.cpp).
#pragma once
#include <map>
#include <set>
#include <vector>

#include "autosched/model/func_graph.h"
#include "autosched/model/kernel_choice.h"
#include "autosched/model/options.h"
#include "autosched/model/plan.h"
#include "autosched/model/plan.h"
#include "autosched/model/options.h"

namespace solder::autosched {

// Rows per block: thread y of the template's 32 x 32 block, so at most 32.
constexpr int64_t kMaxInnerOuterRows = 32;
// Threads along each row (thread x).
constexpr int kInnerOuterLanes = 32;
// Shared memory the blocks' row sums take besides the staged rows (their lanes' partials).
constexpr int64_t kInnerOuterReductionBytes = 16 * 1024;

// Returns the index of the kernel that now hosts a group's column sums, or -1 (plan unchanged but
// for explanations). One group at most.
int host_column_sums_in_rows(const FuncGraph &g, const PlannerOptions &opt, const std::map<int, KernelChoice> &choice,
                             const std::vector<std::set<int>> &deps, const std::vector<int> &kernel_root, Plan &plan);

}  // namespace solder::autosched
