// Horizontal fusion of split-K launches. Reductions over one iteration domain
// (autosched/model/reduction_domain.h) that the planner split in different kernels (nvfuser_2146's four
// column sums of the same 56 x 1024 rows, each in a kernel of its own) have their partials summed
// in one pair of launches (zeroing, sums), so the points they share are read once instead of once
// per reduction. Runs on the built plan, after the search (which costs each kernel alone): it
// re-slices each group along one dim they all reduce, updates the kernels' launches, bytes and
// estimates and the partials' shapes, and explains each group.
#pragma once
#include <map>
#include <set>
#include <vector>

#include "autosched/model/func_graph.h"
#include "autosched/model/kernel_choice.h"
#include "autosched/model/options.h"
#include "autosched/model/plan.h"

namespace solder::autosched {

// `kernel_root[i]`: the root node of plan.kernels[i]; `deps`: kernel_dependencies.
void share_split_k(const FuncGraph &g, const PlannerOptions &opt, const std::map<int, KernelChoice> &choice,
                   const std::vector<std::set<int>> &deps, const std::vector<int> &kernel_root, Plan &plan);

}  // namespace solder::autosched
