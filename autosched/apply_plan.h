// Realizes a Plan on the pipeline's Funcs through the schedules/ templates.
#pragma once
#include "Halide.h"
#include "autosched/plan.h"

namespace solder::autosched {

// Throws std::runtime_error naming the Func when the plan does not match the pipeline.
void apply_plan(const Plan &plan, const std::vector<Halide::Func> &outputs, const Halide::Target &target);

}  // namespace solder::autosched
