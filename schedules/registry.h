// The kernel templates, in the order the planner tries them (schedules/template.h).
#pragma once
#include <vector>

#include "schedules/template.h"

namespace solder::autosched {

// Priority order: the first template whose choose step answers builds the kernel.
const std::vector<const KernelTemplate *> &kernel_templates();
// The template of a kind (every TemplateKind has one).
const KernelTemplate &kernel_template(TemplateKind kind);
// The first template that builds this kernel (the pointwise template builds any kernel).
KernelChoice choose_kernel(const FuncGraph &g, const PlannerOptions &opt, int root, const std::vector<int> &members);

}  // namespace solder::autosched
