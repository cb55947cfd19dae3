#include "autosched/model/kernel_leaves.h"

#include <algorithm>

namespace solder::autosched {

void merge_leaf(std::map<int, Region> &leaves, int node, const Region &region) {
    auto it = leaves.find(node);
    if (it == leaves.end()) {
        leaves.emplace(node, region);
        return;
    }
    for (size_t d = 0; d < it->second.size() && d < region.size(); d++) {
        it->second[d].min = std::min(it->second[d].min, region[d].min);
        it->second[d].max = std::max(it->second[d].max, region[d].max);
    }
}

void add_leaves(const FuncGraph &g, int from, const Region &region, const std::vector<bool> &inside, int skip,
                std::map<int, Region> &leaves) {
    auto regions = g.regions_for(from, region, inside);
    for (size_t p = 0; p < regions.size(); p++) {
        if (regions[p].empty() || int(p) == from || int(p) == skip || inside[p]) continue;
        merge_leaf(leaves, int(p), regions[p]);
    }
}

std::map<int, Region> kernel_leaves(const FuncGraph &g, int r, const std::vector<int> &members) {
    std::vector<bool> inside(g.nodes.size(), false);
    for (int m : members) inside[size_t(m)] = true;
    std::map<int, Region> leaves;
    add_leaves(g, r, g.nodes[size_t(r)].region, inside, -1, leaves);
    return leaves;
}

int64_t leaf_bytes(const FuncGraph &g, const std::map<int, Region> &leaves) {
    int64_t b = 0;
    for (auto &[p, r] : leaves) b += region_points(r) * g.nodes[size_t(p)].elem_bytes;
    return b;
}

std::optional<DomainPoints> domain_points(const FuncGraph &g, int func) {
    if (func < 0) return std::nullopt;
    const FuncNode &R = g.nodes[size_t(func)];
    auto d = reduction_domain(R.function);
    // Threads go across position 0, which must be a pure dim for the partials to have it.
    if (!d || d->reduced.empty() || d->reduced[0]) return std::nullopt;
    DomainPoints out;
    out.domain = *d;
    for (size_t p = 0; p < d->vars.size(); p++) {
        if (d->reduced[p]) {
            // The RVar's bounds at the estimates (FuncNode keeps them per update).
            const size_t i = size_t(d->rvar_index[p]);
            if (R.rvar_mins.empty() || i >= R.rvar_mins[0].size()) return std::nullopt;
            const int64_t mn = R.rvar_mins[0][i];
            out.ranges.push_back({mn, mn + R.rvar_extents[0][i] - 1});
            continue;
        }
        auto it = std::find(R.dims.begin(), R.dims.end(), d->vars[p]);
        if (it == R.dims.end()) return std::nullopt;
        out.ranges.push_back(R.region[size_t(it - R.dims.begin())]);
    }
    return out;
}

}  // namespace solder::autosched
