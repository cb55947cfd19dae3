// Which tensors a row kernel loads into shared memory once per block. A kernel input that several
// of the kernel's stages read (the row a normalization reduces, then scales) is otherwise loaded
// from global memory by each of them: layer norm's row three times. Staged, the block reads it once
// with wide, independent loads (no reduction chain between them), and every stage reads it on chip.
#pragma once
#include <set>
#include <vector>

#include "autosched/model/func_graph.h"
#include "autosched/model/kernel_choice.h"
#include "autosched/model/plan.h"

namespace solder::autosched {

// Shared memory one block may spend on staged rows (Halide 21 opts in no more than 48 KB in all,
// and the block-level reductions' partials need some).
constexpr int64_t kMaxStagedBytesPerBlock = 24 * 1024;

// The inputs of row kernel `root` (pipeline inputs or other kernels' roots) read by two or more of
// its computed stages (the root and its block-level reductions), through inlined Funcs that no
// other kernel recomputes (not read by a reduction directly); smallest first while they fit in
// kMaxStagedBytesPerBlock.
// `per_block`: row_block_regions of the kernel (one row); `groups`: for each node, the kernels it is
// in; a block owning `rows_per_block` rows stages that many. `larger`: the same regions with the
// pipeline's run-time sizes larger (FuncGraph::at_larger_sizes; null where every size is fixed): an
// input whose staged row has more points there is not staged (its shared memory would grow with
// the sizes the pipeline runs at, past what a block may have).
std::vector<StagedInput> choose_staged_inputs(const FuncGraph &g, int root, const KernelChoice &kc,
                                              const std::vector<Region> &per_block,
                                              const std::vector<std::set<int>> &groups, int rows_per_block = 1,
                                              const std::vector<Region> *larger = nullptr);

}  // namespace solder::autosched
