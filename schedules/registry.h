// The kernel templates, in the order the planner tries them (schedules/template.h).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "schedules/template.h"

namespace solder::autosched {

// Priority order: the first template whose choose step answers builds the kernel.
const std::vector<const KernelTemplate *> &kernel_templates();
// The template of a kind (every TemplateKind has one).
const KernelTemplate &kernel_template(TemplateKind kind);
// Each template's answer for this kernel, in priority order up to the one that builds it: its kind
// and why it does not (empty for the one that does). Reasons as data, for tools and tests.
std::vector<std::pair<TemplateKind, std::string>> template_answers(const FuncGraph &g, const PlannerOptions &opt,
                                                                   int root, const std::vector<int> &members);
// The first template that builds this kernel (the row template builds any kernel).
KernelChoice choose_kernel(const FuncGraph &g, const PlannerOptions &opt, int root, const std::vector<int> &members);

}  // namespace solder::autosched
