// The schedules `solder run --schedule NAME` can apply, and on which targets each is available.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "Halide.h"

namespace solder {

struct ScheduleChoice {
    std::string name;
    std::string description;
    std::function<bool(const Halide::Target &)> supports;
    // Schedules the pipeline's Funcs in place; returns schedule source when there is one.
    std::function<std::string(const std::vector<Halide::Func> &, const Halide::Target &)> apply;
};

const std::vector<ScheduleChoice> &all_schedules();
const ScheduleChoice *find_schedule(const std::string &name);
std::string schedule_names_joined();

}  // namespace solder
