// The device's launch limits (autosched/model/device_limits.h) applied to a finished plan: every
// kernel's launches worked out at the planning estimates by its template, a grid whose y or z
// extent is too large folded into x, and what is still too large reported, for the planner to
// replace that kernel (autosched/planner.cpp).
#pragma once
#include <vector>

#include "autosched/model/device_limits.h"
#include "autosched/model/func_graph.h"
#include "autosched/model/options.h"
#include "autosched/model/plan.h"

namespace solder::autosched {

// Fills every kernel's launch_shapes (GPU plans). Where a kernel needs more than 65535 blocks
// along grid y or z at the planned size, its block dims are all fused into grid x instead
// (KernelPlan::grid_in_x), with the reason in the plan. Returns the violations left.
std::vector<LimitViolation> fit_device_limits(const FuncGraph &g, const PlannerOptions &opt, Plan &plan);

// The launches of one kernel of `plan` (for steps that weigh a kernel before taking it).
std::vector<LaunchShape> launch_shapes_of(const FuncGraph &g, const PlannerOptions &opt, const Plan &plan,
                                          const KernelPlan &k);

}  // namespace solder::autosched
