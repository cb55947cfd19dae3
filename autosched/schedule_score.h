// Scores a schedule Solder did not make with Solder's cost model: reads back, for every Func of the
// original pipeline, whether the schedule computes it at root (a kernel boundary: written to global
// memory), inlines it, or computes it inside another Func's loops, and costs the kernels that makes.
// This is how `solder plan APP --compare` puts Halide's auto-schedulers and Solder side by side.
//
// What it does not see: Funcs a schedule adds (rfactor intermediates, `in()` wrappers staging data),
// and tilings: every kernel is costed with the block shape Solder's model likes best for it, which
// flatters the other schedule if anything.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "Halide.h"
#include "autosched/model/func_graph.h"
#include "autosched/planner.h"

namespace solder::autosched {

struct ScheduleScore {
    std::string schedule;
    int kernels = 0;  // Funcs computed at root (outputs included): one loop nest or kernel each
    int64_t total_bytes = 0, min_bytes = 0;
    double est_us = 0;
    std::vector<std::string> roots;  // the non-output Funcs it stores
};

// `g` must be built from an unscheduled copy of the pipeline (a schedule may rewrite the Funcs it
// is applied to: rfactor); `outputs` are the scheduled copy's, whose Func names map to g's through
// `original` (names missing there are taken as they are).
ScheduleScore score_applied_schedule(const FuncGraph &g, const std::vector<Halide::Func> &outputs,
                                     const PlannerOptions &opt, const std::string &schedule,
                                     const std::map<std::string, std::string> &original = {});

}  // namespace solder::autosched
