// Planner options from the environment: SOLDER_DISABLE=horizontal,remat,compute_at,exact,
// SOLDER_ENABLE=single_kernel_groups,staging,fewest_bytes and SOLDER_KEEP_UNFUSED=FuncA,FuncB. Unknown words are errors
// that list the valid ones.
#pragma once
#include <string>

#include "autosched/planner.h"

namespace solder::autosched {

PlannerOptions options_from_env(bool gpu);
// Applies a comma-separated --disable list on top of `opt`; throws UnknownNameError
// (runtime/unknown_name_error.h) on an unknown word.
void apply_disable_list(PlannerOptions &opt, const std::string &list);
// Applies a comma-separated SOLDER_ENABLE (or --enable) list; throws UnknownNameError on an unknown word.
void apply_enable_list(PlannerOptions &opt, const std::string &list);
// Whether SOLDER_DISABLE holds `word`, one of the runtime's knobs there: `fallback` (a failing
// Solder schedule is an error instead of being replaced by the unfused one, runtime/fallback_run.h)
// or `fast_math` (runtime/fast_device_math.h). Throws on an unknown word, so a typo in
// SOLDER_DISABLE is caught whatever the schedule.
bool disabled_in_env(const std::string &word);

}  // namespace solder::autosched
