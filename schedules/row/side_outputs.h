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

#include "autosched/model/func_graph.h"
#include "autosched/model/options.h"
#include "autosched/model/kernel_choice.h"

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

// Whether one block of row kernel `r` (`kc`) needs `s`, whose dims are the root's outer dims, at its
// own rows alone (what the block computes of it, it may then write): empty if so, else why not.
std::string needed_beyond_own_rows(const FuncGraph &g, int r, const KernelChoice &kc, int s);

}  // namespace solder::autosched
