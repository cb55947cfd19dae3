// Side outputs (a plan step beside the templates): a pipeline output that another of its Funcs
// reads, such as int8 quantization's per-row scales, which the quantized matrix reads again. As a
// root of its own, its reduction is stored and the matrix read twice (a kernel for the row maxima,
// one for the scales, one for the matrix). Here the search may compute it inside its readers'
// kernel like any other Func; where that is a row kernel and it lies at the points of the kernel's
// rows, reading the kernel's per-row reductions at its own points, or a pointwise kernel and it
// lies at the root's points, the kernel also writes it, beside its root (`KernelPlan::side`): the
// readers read a copy (Func::clone_in), so that it and the root can share the block loop (row) or
// the thread loop (pointwise) through compute_with.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "autosched/model/cost_model.h"
#include "autosched/model/func_graph.h"
#include "autosched/model/options.h"
#include "autosched/model/kernel_choice.h"
#include "autosched/model/plan.h"

namespace solder::autosched {

// Outputs the search may leave to their readers' kernels: read by another Func of the pipeline,
// one pure definition without specializations, no reason of its own to be stored (data-dependent
// reads, the generic template, keep_unfused). GPU plans with compute_at and side_outputs only.
std::set<int> side_output_candidates(const FuncGraph &g, const PlannerOptions &opt);

// Whether candidate `s`, not a root of a partition (`root`; `groups`: the kernels each Func is
// computed in; `choice`: each root's kernel), can be written by the kernel it is computed in:
// empty if so (`host` gets that kernel's root), else why not.
std::string side_output_why_not(const FuncGraph &g, const std::vector<bool> &root,
                                const std::vector<std::set<int>> &groups, const std::map<int, KernelChoice> &choice,
                                int s, int *host);

// Sibling outputs of a row kernel: a pipeline output that no Func reads, computed alone in a pointwise
// kernel (every Func in it inlined) over the same points as a row kernel's root, reading an input
// that kernel reads too, and independent of it, is written by the row kernel's blocks beside its
// root (`KernelPlan::side`, fused at the block loop through compute_with, its own threads over its
// rows): the shared inputs are read once. A residual add before an RMS norm that outputs both the
// sum and the normed values read the two addends twice in two kernels. `deps`: the kernels each
// root depends on; `kernel_root`: each of the plan's kernels' roots, updated with the plan.
void merge_row_siblings(const FuncGraph &g, const PlannerOptions &opt, const std::vector<std::set<int>> &deps,
                        const std::map<int, KernelChoice> &choice, const CostModel &cost, Plan &plan,
                        std::vector<int> &kernel_root);

// Whether one block of row kernel `r` (`kc`) needs `s`, whose dims are the root's outer dims, at its
// own rows alone (what the block computes of it, it may then write): empty if so, else why not.
std::string needed_beyond_own_rows(const FuncGraph &g, int r, const KernelChoice &kc, int s);

}  // namespace solder::autosched
