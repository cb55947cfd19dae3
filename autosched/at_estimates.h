// Values at the pipeline's estimates, for the rewrites made before planning
// (autosched/deviation_sums.h, autosched/cloned_reductions.h), which decide from sizes before the
// planner's graph exists (autoschedule.cpp builds it on the first question).
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "Halide.h"

namespace solder::autosched {

// Values at the pipeline's estimates, or a negative number where one is not known: an
// expression's (an RVar's extent), and the number of points of a Func's region.
struct AtEstimates {
    std::function<int64_t(const Halide::Expr &)> extent;
    std::function<int64_t(const std::string &)> points;
};

}  // namespace solder::autosched
