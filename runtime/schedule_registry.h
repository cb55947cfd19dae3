// The schedules `solder run --schedule NAME` can apply, and on which targets each is available.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "Halide.h"
#include "autosched/model/options.h"
#include "autosched/model/plan.h"

namespace solder {

// What applying a schedule leaves behind besides the scheduled Funcs: C++ schedule source a user
// could paste into a generator (empty when the schedule has none), and Solder's plan when the
// schedule is Solder's.
struct AppliedSchedule {
    std::string source;
    std::shared_ptr<const autosched::Plan> plan;
};

struct ScheduleChoice {
    std::string name;
    std::string description;
    std::function<bool(const Halide::Target &)> supports;
    // Schedules the pipeline's Funcs in place. Solder's schedule plans with `options.planner` (for
    // the target's kind: GPU or host); the others take no options.
    std::function<AppliedSchedule(const std::vector<Halide::Func> &, const Halide::Target &,
                                  const SolderOptions &options)>
        apply;
    // Halide's auto-schedulers: applying them forks a child first (runtime/halide_autoschedulers.h).
    bool forks = false;
};

const std::vector<ScheduleChoice> &all_schedules();
const ScheduleChoice *find_schedule(const std::string &name);
std::string schedule_names_joined();

}  // namespace solder
