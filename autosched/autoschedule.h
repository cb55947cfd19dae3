// One entry for scheduling a user's pipeline (the plugin's, and any caller's with Funcs of its
// own): the fused planner where the pipeline can be analysed, with the generic template for each
// Func the fused templates cannot take; where the analysis itself cannot follow the pipeline (an
// extern stage, a region it cannot bound), every Func through the generic template, the plan
// saying why. Missing or non-positive estimates stay errors (EstimateError) that name the Func or
// parameter and the dimension.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "Halide.h"
#include "autosched/model/plan.h"
#include "autosched/planner.h"

namespace solder::autosched {

struct Autoscheduled {
    Plan plan;
    std::string source;  // the C++ schedule (schedules/writer/schedule_writer.h)
};

// `checks`, where given (the plugin passes the Pipeline it schedules), takes the require()s that
// name only parameters and sizes on a GPU target: they move out of their Funcs into its
// requirements, checked once per call, so those Funcs' kernels run on the device
// (autosched/hoisted_requirements.h). Without it they stay, and their kernels run on the host.
Autoscheduled autoschedule(const std::vector<Halide::Func> &outputs, const Halide::Target &target,
                           const PlannerOptions &opt, const std::string &app, Halide::Pipeline *checks = nullptr);

// The plan that gives every non-inlined Func the generic template: outputs, Funcs with updates,
// extern stages and their inputs, and Funcs read at other points than their consumer's own (a
// stencil, a resampling, a lookup) are roots, and so are `author_roots` (Funcs their author
// computed at root); the rest are inlined. `why` says why the fused planner was not used.
Plan plan_generic_pipeline(const std::vector<Halide::Func> &outputs, const std::string &why, const std::string &app,
                           const std::set<std::string> &author_roots = {});

}  // namespace solder::autosched
