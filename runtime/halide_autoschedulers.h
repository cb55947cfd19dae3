// Halide's own auto-schedulers, loaded from the plugins the halide wheel ships, applied in place
// to a pipeline's Funcs. They are the competition Solder is measured against.
#pragma once
#include <string>

#include "Halide.h"

namespace solder {

struct HalideAutoscheduler {
    std::string name;                // Solder's schedule name: li2018, mullapudi2016, adams2019, anderson2021
    std::string halide_name;         // the plugin's registered name: Li2018, ...
    std::string plugin;              // libautoschedule_<x>.so
    bool host = false, gpu = false;  // which targets it makes schedules for
};

const std::vector<HalideAutoscheduler> &halide_autoschedulers();
// Applies the autoscheduler; returns the schedule source Halide printed. Throws on failure.
std::string apply_halide_autoscheduler(const HalideAutoscheduler &a, const std::vector<Halide::Func> &outputs,
                                       const Halide::Target &target);

}  // namespace solder
