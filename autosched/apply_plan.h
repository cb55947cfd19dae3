// Realizes a Plan on the pipeline's Funcs through the schedules/ templates.
#pragma once
#include <string>

#include "Halide.h"
#include "autosched/model/plan.h"

namespace solder::autosched {

// Throws std::runtime_error naming the Func when the plan does not match the pipeline. Returns the
// applied schedule as C++ source a generator can paste (schedules/writer/schedule_writer.h).
std::string apply_plan(const Plan &plan, const std::vector<Halide::Func> &outputs, const Halide::Target &target);

// The plan's kernels that apply_plan schedules on the host instead of the GPU, and why (each
// name followed by kOnHostReason): on OpenCL without cl_doubles, those computing in float64.
std::vector<std::string> kernels_on_host(const Plan &plan, const std::vector<Halide::Func> &outputs,
                                         const Halide::Target &target);
extern const char *const kOnHostReason;

}  // namespace solder::autosched
