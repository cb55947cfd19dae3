// What a kernel reads from global memory, by region: the leaves (pipeline inputs and other
// kernels' roots) that computing a Func over a region reaches when some Funcs are computed on chip.
// Shared by the steps that rework kernels after the search (schedules/shared_split_k/shared_split_k.h,
// schedules/inner_outer/inner_outer_plan.h), which recount bytes when they merge what kernels read.
#pragma once
#include <map>
#include <optional>
#include <vector>

#include "autosched/model/func_graph.h"
#include "autosched/model/reduction_domain.h"

namespace solder::autosched {

// Adds to `leaves` (node -> region, merged as bounding boxes) what computing `from` over `region`
// reads, with `inside` computed on chip; `skip` (-1: none) counts as a leaf that is not read.
void add_leaves(const FuncGraph &g, int from, const Region &region, const std::vector<bool> &inside, int skip,
                std::map<int, Region> &leaves);
// Adds `region` of `node` to `leaves`, merged with what is there as a bounding box.
void merge_leaf(std::map<int, Region> &leaves, int node, const Region &region);
int64_t leaf_bytes(const FuncGraph &g, const std::map<int, Region> &leaves);
// What the kernel of root `r` with the Funcs `members` computed in it reads from global memory.
std::map<int, Region> kernel_leaves(const FuncGraph &g, int r, const std::vector<int> &members);

// Reduction `func`'s iteration domain and the points it walks per position (RVars' bounds, and
// the node's region for pure vars); nullopt when it has none or position 0 is reduced.
struct DomainPoints {
    ReductionDomain domain;
    std::vector<Range64> ranges;
};
std::optional<DomainPoints> domain_points(const FuncGraph &g, int func);

}  // namespace solder::autosched
