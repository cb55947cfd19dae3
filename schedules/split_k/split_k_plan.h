// Split-K's plan step: a kernel whose blocks cannot fill the GPU while one reduction in it sums
// many rows per result has that reduction summed in slices by launches of their own, into
// partials its blocks then add (schedules/split_k/split_k_schedule.h is the Halide half).
#pragma once
#include <cstdint>
#include <utility>

#include "autosched/model/func_graph.h"
#include "autosched/model/kernel_choice.h"
#include "autosched/model/options.h"

namespace solder::autosched {

// Threads of the split-K partials' blocks along the innermost pure dim.
constexpr int64_t kSplitThreads = 256;
// Rows each split-K slice sums at least (fewer: the partials outweigh the work they spread).
constexpr int64_t kMinSliceRows = 64;

// The dims (dx < dy) over which reduction `func` is a contraction (autosched/model/contraction.h)
// with a block's tile of results along each and kMinContractionSplitSteps steps or more at the
// estimates, as a split-K of it in contraction tiles takes them (the first such pair); {-1, -1}
// where there is none or the tiles are off.
constexpr int64_t kMinContractionSplitSteps = 1024;
std::pair<int, int> split_contraction_dims(const FuncGraph &g, const PlannerOptions &opt, int func);

// Sets kc's split fields where split-K applies to a pointwise or row kernel choice.
void consider_split_k(const FuncGraph &g, const PlannerOptions &opt, int root, KernelChoice &kc);

}  // namespace solder::autosched
