// The planner's knobs, one table for every way in: the plugin's autoscheduler.KEY=VALUE
// parameters, the words of SOLDER_DISABLE / --disable (flags turned off) and SOLDER_ENABLE /
// --enable (flags turned on), and SOLDER_KEEP_UNFUSED. Every value is checked where it enters;
// a bad one is an error naming the knob, the value and what is allowed, never a fallback.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "autosched/planner.h"
#include "runtime/number_arg.h"

namespace solder::autosched {

struct Knob {
    std::string name;
    std::string kind;     // "flag" (0/1), "integer", "names" (comma-separated Func names)
    std::string default_text;
    std::string help;
};
// Every knob, in the order the README lists them.
const std::vector<Knob> &planner_knobs();

// Sets knob `key` from its text. Throws UnknownNameError for an unknown key (listing the valid
// ones) and std::invalid_argument for a bad value; `where` is the name the user wrote
// ("autoscheduler.parallelism", "SOLDER_KEEP_UNFUSED"), for the message.
void set_planner_knob(PlannerOptions &opt, const std::string &key, const std::string &value,
                      const std::string &where);

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
