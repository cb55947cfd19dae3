// Planner options from the environment: SOLDER_DISABLE=horizontal,remat,compute_at,exact and
// SOLDER_KEEP_UNFUSED=FuncA,FuncB. Unknown words are errors that list the valid ones.
#pragma once
#include <string>

#include "autosched/planner.h"

namespace solder::autosched {

PlannerOptions options_from_env(bool gpu);
// Applies a comma-separated --disable list on top of `opt`; throws on an unknown word.
void apply_disable_list(PlannerOptions &opt, const std::string &list);

}  // namespace solder::autosched
