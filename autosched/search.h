// The search for kernel roots. First a greedy pass: start from the roots no choice can avoid and
// store, one at a time, the Func each broken rule names, until every kernel can be built. Then an
// exact branch and bound over every remaining Func (root or not, consumers first), which proves the
// least estimated time under the cost model, or stops at its budget with the best plan found so far.
// Deterministic: fixed visiting order, and the budget counts evaluated partitions, not time (the
// time budget is only a safety net, and the plan says when it was the one that stopped the search).
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "autosched/model/func_graph.h"
#include "autosched/partition.h"
#include "autosched/planner.h"

namespace solder::autosched {

struct SearchResult {
    Partition best;
    std::map<int, std::string> why;  // why each non-output root is stored
    bool proved_optimal = false;     // the exact search ran to the end
    int64_t evaluated = 0;           // partitions costed in full
    double greedy_us = 0;            // the greedy plan's estimate, for comparison
    std::string summary;             // one line for the plan
    int64_t work = 0;                // the local search's work (beyond the exact search's size)
};

// `free_outputs`: outputs the search may compute inside their readers' kernels instead of storing
// them as roots (schedules/row/side_outputs.h: the caller checks that their kernels can write them).
SearchResult search_roots(const FuncGraph &g, const PlannerOptions &opt, const std::set<int> &free_outputs = {});

// The most operations any kernel of `p` inlines per point, counted as each kernel's template
// computes its members (autosched/model/inline_copies.h): what the search holds to kMaxInlineOps.
double most_inline_ops(const FuncGraph &g, const PlannerOptions &opt, const Partition &p);

// The least-cost legal partition by trying every subset of optional roots: for tests of the exact
// search on small graphs. Throws if there are more than `max_free` optional roots.
Partition brute_force_roots(const FuncGraph &g, const PlannerOptions &opt, int max_free = 16);

}  // namespace solder::autosched
