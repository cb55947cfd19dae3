// The planner's knobs, one table for every way in: the plugin's autoscheduler.KEY=VALUE
// parameters, the words of SOLDER_DISABLE / --disable (flags turned off) and SOLDER_ENABLE /
// --enable (flags turned on), and SOLDER_KEEP_UNFUSED. Every value is checked where it enters;
// a bad one is an error naming the knob, the value and what is allowed, never a fallback.
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "autosched/model/device_profile.h"
#include "core/number_arg.h"

namespace solder::autosched {

// What the planner may do, and the device it plans for: one value, made by the knob parser below
// and passed to the planner (never read from the environment inside it).
struct PlannerOptions {
    bool horizontal = true;   // merge independent 1-D pointwise kernels into one launch
    bool remat = true;        // recompute cheap Funcs in every kernel that uses them
    bool compute_at = true;   // fuse reductions and stencil producers into their consumer's blocks
    bool gpu = true;          // plan for a GPU (blocks) or the host (parallel loops)
    bool exact_search = true; // branch and bound after the greedy pass (autosched/search.h)
    // Row kernels load inputs that several stages read once per block into shared memory
    // (schedules/row/row_staging.h). Off by default: on the H100 the re-reads it saves hit in L1, and
    // rmsnorm, layernorm and softmax ran 0-4% slower with it (bench/RESULTS.md).
    bool stage_rows = false;
    int exact_max_free = 30;                 // optional roots the exact search takes; beyond: local search
    int64_t search_max_evaluations = 20000;  // partitions the search may cost in full
    int time_budget_ms = 1000;               // a safety net over the evaluation budget
    // A kernel that computes one Func alone, a reduction, may take a fused template: the block
    // reduction of the row template, its reduction split across the block's threads. Off by
    // default: alone, a reduction with many results per block is usually as fast per thread.
    bool single_kernel_groups = false;
    // Take a fusion that moves fewer bytes even where the cost model expects it to be slower
    // (SOLDER_ENABLE=fewest_bytes, `solder plan --enable fewest_bytes`): today only the inner-outer
    // kernel (schedules/inner_outer/inner_outer_plan.h), which read nvfuser_2146's inputs once but ran slower on
    // the H100 than the two passes it replaces (bench/RESULTS.md).
    bool fewest_bytes = false;
    std::set<std::string> keep_unfused;  // Funcs always materialized (a debugging knob)
    DeviceProfile device;
};

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
// (core/unknown_name_error.h) on an unknown word.
void apply_disable_list(PlannerOptions &opt, const std::string &list);
// Applies a comma-separated SOLDER_ENABLE (or --enable) list; throws UnknownNameError on an unknown word.
void apply_enable_list(PlannerOptions &opt, const std::string &list);
// Whether SOLDER_DISABLE holds `word`, one of the runtime's knobs there: `fallback` (a failing
// Solder schedule is an error instead of being replaced by the unfused one, runtime/fallback_run.h)
// or `fast_math` (runtime/fast_device_math.h). Throws on an unknown word, so a typo in
// SOLDER_DISABLE is caught whatever the schedule.
bool disabled_in_env(const std::string &word);

}  // namespace solder::autosched
