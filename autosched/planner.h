// Solder's fusion planner: analyses a pipeline (autosched/model/func_graph.h), chooses kernel roots,
// placements and tilings under the cost model, and returns a Plan (autosched/model/plan.h) whose
// every launch is within the device's limits at the planning estimates (autosched/plan_limits.h).
#pragma once
#include <string>

#include "autosched/model/func_graph.h"
#include "autosched/model/options.h"
#include "autosched/model/plan.h"

namespace solder::autosched {

Plan plan_pipeline(const FuncGraph &g, const PlannerOptions &opt, const std::string &app);

// The plan's reason for each Func FuncGraph::build inlined because it is read at data-dependent
// points and has no estimates (FuncGraph::inlined_unbounded).
extern const char *const kInlinedUnboundedReason;

}  // namespace solder::autosched
