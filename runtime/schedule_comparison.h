// Every schedule Solder knows for a target (unfused, Halide's auto-schedulers, Solder's plan),
// applied to a fresh copy of the app's pipeline and scored with Solder's cost model
// (autosched/schedule_score.h): the table `solder plan APP --compare` prints.
#pragma once
#include <string>
#include <vector>

#include "apps/app_spec.h"
#include "autosched/model/options.h"
#include "autosched/schedule_score.h"

namespace solder::autosched {

struct ComparedSchedule {
    ScheduleScore score;
    std::string error;  // the schedule failed on this pipeline (an auto-scheduler's error)
};

// `only`: these schedules (empty: every one the target supports). `options` go to Solder's
// schedule as to a build, and its planner part (for the target's kind) scores every schedule.
std::vector<ComparedSchedule> compare_schedules(const AppSpec &app, AppSize size, const Halide::Target &target,
                                                const SolderOptions &options,
                                                const std::vector<std::string> &only = {});
std::string comparison_table(const std::string &app, const std::vector<ComparedSchedule> &rows);

}  // namespace solder::autosched
