// Halide's own auto-schedulers, loaded from the plugins the halide wheel ships, applied in place
// to a pipeline's Funcs. They are the competition Solder is measured against.
#pragma once
#include <functional>
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
// Runs `work` in a forked child process and returns the text it returned there. A failure there
// (an exception, or the process ending: some of Halide's plugins throw through code without
// exception support) throws std::runtime_error "WHAT failed|crashed (SIGNAL) on this pipeline: ..."
// with the child's error output.
std::string run_in_child(const std::string &what, const std::function<std::string()> &work);
// The same fork, its outcome as data: `out` the text `work` returned (ok), `err` the child's error
// output; `threw` when `work` ended in an exception it threw (its message is `err`), `how` "failed"
// or "crashed (SIGNAL)" otherwise.
struct ChildOutcome {
    bool ok = false, threw = false;
    std::string out, err, how;
};
ChildOutcome run_forked(const std::function<std::string()> &work);
// Whether this process is such a child.
bool running_in_child();
// Applies the autoscheduler; returns the schedule source Halide printed. Throws on failure. It runs
// the plugin in a child first (run_in_child), then here: the scheduled Funcs are this process's.
std::string apply_halide_autoscheduler(const HalideAutoscheduler &a, const std::vector<Halide::Func> &outputs,
                                       const Halide::Target &target);

}  // namespace solder
