// Split-K's plan step: a kernel whose blocks cannot fill the GPU while one reduction in it sums
// many rows per result has that reduction summed in slices by launches of their own, into
// partials its blocks then add (schedules/split_k/split_k_schedule.h is the Halide half).
#pragma once
#include <cstdint>

#include "autosched/model/func_graph.h"
#include "autosched/model/kernel_choice.h"
#include "autosched/model/options.h"

namespace solder::autosched {

// Threads of the split-K partials' blocks along the innermost pure dim.
constexpr int64_t kSplitThreads = 256;
// Rows each split-K slice sums at least (fewer: the partials outweigh the work they spread).
constexpr int64_t kMinSliceRows = 64;

// Sets kc's split fields where split-K applies to a pointwise or row kernel choice.
void consider_split_k(const FuncGraph &g, const PlannerOptions &opt, int root, KernelChoice &kc);

}  // namespace solder::autosched
