// A partition of the pipeline into kernels, decided by one choice per Func: is it a kernel root
// (written to global memory) or not (computed inside the kernels of its consumers). From the roots
// follow which kernels each Func is computed in, each kernel's template and cost, and the first
// rule the partition breaks, if any, with the Func that would have to be stored to mend it.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "autosched/model/func_graph.h"
#include "autosched/model/kernel_choice.h"
#include "autosched/model/options.h"
#include "autosched/planner.h"

namespace solder::autosched {

struct Partition {
    std::vector<bool> root;
    std::vector<std::set<int>> groups;   // the kernels (by root) each Func is computed in
    std::map<int, KernelChoice> choice;  // per root, when legal
    // Shared reductions (PlannerOptions::shared_reductions): a reduction that several kernels read,
    // computed per block by the row kernel of its host root and written there for the others, by
    // node: its host root.
    std::map<int, int> hosted;
    int violation = -1;  // a Func that must be stored for this partition to be built
    std::string violation_reason;
    int64_t total_bytes = 0;
    double est_us = 0;
    bool legal() const { return violation < 0; }
};

// Roots no choice can avoid: outputs, Funcs read with data-dependent indices, Funcs the options
// keep out of fusion. `why` gets a reason for each non-output among them.
std::vector<bool> forced_roots(const FuncGraph &g, const PlannerOptions &opt, std::map<int, std::string> &why);
// Why a Func an extern stage reads is a root (FuncNode::read_by_extern), in forced_roots and in the
// plan's line from it to the extern.
extern const char *const kReadByExternReason;

// The kernels each non-input Func is computed in: its own if a root, else its consumers', or with
// `share`, for a reduction several kernels read that one of them may host (shared_reduction_host),
// that one's alone.
std::vector<std::set<int>> kernel_groups(const FuncGraph &g, const std::vector<bool> &root, bool share = false);
// The same for node i alone, from its consumers' groups (filled in already: consumers come later
// in the graph's order). The search decides nodes consumers first and calls this for each.
std::set<int> kernel_group_of(const FuncGraph &g, const std::vector<bool> &root,
                              const std::vector<std::set<int>> &groups, int i, bool share = false);
// The root whose kernel may compute reduction `i`, read by the kernels `readers` (more than one),
// per block and write it for the others: the first of them (the others come later in the graph's
// order, so none feeds it), if `i` lies at its rows (the root's outer dims, by name and extent) and
// it is no reduction itself. -1 if none. Whether its kernel can is known once its template is
// chosen (schedules/row/shared_reductions.h).
int shared_reduction_host(const FuncGraph &g, const std::vector<bool> &root, const std::set<int> &readers, int i);

// Per root: the roots whose kernels must finish before its kernel starts, through any chain (a
// kernel reads another's root directly, or through Funcs it computes inline). Horizontal fusion
// may launch two kernels together only if neither depends on the other.
// `hosted`: Partition::hosted (a kernel reading a shared reduction depends on its host's).
std::vector<std::set<int>> kernel_dependencies(const FuncGraph &g, const std::vector<bool> &root,
                                               const std::vector<std::set<int>> &groups,
                                               const std::map<int, int> &hosted = {});

// A kernel reads through at most this many resamplings (a pyramid's decimation in x, then in y, is
// two) along any chain of its Funcs: a node deeper than that is stored.
constexpr int kMaxResamplingsPerKernel = 4;

// A rule that forces node i to be stored given its groups (known once its consumers are decided):
// empty when none does. Shared by the full evaluation and by the search, which applies it early.
// `depths`: resampling_depths(g, root), where the caller has them for every node.
std::string storage_rule(const FuncGraph &g, const PlannerOptions &opt, const std::vector<bool> &root,
                         const std::vector<std::set<int>> &groups, int i, const std::vector<int> *depths = nullptr);

// Per node, the most resampling reads along any chain of Funcs from it to its kernel's root.
std::vector<int> resampling_depths(const FuncGraph &g, const std::vector<bool> &root);

// Kernel choices already costed, by root and members: partitions the search visits share most of
// their kernels, and costing a kernel (bounds over the graph per block shape) dominates the search.
using KernelCache = std::map<std::pair<int, std::vector<int>>, KernelChoice>;

// How a partition's broken rules are named, for the greedy pass that mends them by storing the Func
// named (autosched/search.cpp).
struct MendRules {
    // An inlined member recomputed more than kGreedyRecompute times per point breaks a rule too.
    bool cap_recompute = false;
    // A kernel whose Funcs overfill the chip names the Func where they fill it, walking out from the
    // root (KernelChoice::cut_offender), not the largest.
    bool cut_nearest = false;
};

Partition evaluate_partition(const FuncGraph &g, const PlannerOptions &opt, const std::vector<bool> &root,
                             KernelCache *cache = nullptr, MendRules rules = {});

// The cost of any partition, legal for Solder's templates or not (a schedule another
// auto-scheduler made): every kernel costed with its best block shape, no rule checked.
Partition score_partition(const FuncGraph &g, const PlannerOptions &opt, const std::vector<bool> &root);

}  // namespace solder::autosched
