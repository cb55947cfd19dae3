// Split-K's steps when a plan is applied (schedules/split_k/split_k_plan.h plans it): rfactor the
// split reduction into its partials before any kernel is placed, and check the partials' name.
#pragma once
#include <string>

#include "schedules/template.h"

namespace solder::autosched {

// Halide makes a Func name unique in the process (Internal::unique_name): the name as asked, or,
// when another Func had it, with every '$' made '_' and "$<n>" appended (sum_18_intm$1,
// sum_1$1_intm -> sum_1_1_intm$2). Throws unless `partials` is named `expected` either way (the
// dumps match such names to the plan's).
void check_partials_name(const Halide::Func &partials, const std::string &func, const std::string &expected);
// The rewrites of the kernel's split-K (plain or shared), where it launches them.
void prepare_split_k(ApplyContext &c, const KernelPlan &k);

}  // namespace solder::autosched
