#include "autosched/stencil_staging.h"

#include <algorithm>

namespace solder::autosched {

namespace {

std::string names(const FuncGraph &g, const std::set<int> &ns) {
    std::string s;
    for (int n : ns) s += (s.empty() ? "" : ", ") + g.nodes[size_t(n)].name;
    return s;
}

}  // namespace

TileStaging stencil_tile_staging(const FuncGraph &g, const std::vector<int> &members) {
    TileStaging t;
    auto member = [&](int n) { return std::find(members.begin(), members.end(), n) != members.end(); };
    for (int m : members)
        if (g.read_through_stencil(m)) t.staged.insert(m);
    // Staged members that are cheap and read only members (and pipeline inputs) at their own point.
    std::set<int> swapped, sources;
    for (int m : t.staged) {
        const FuncNode &n = g.nodes[size_t(m)];
        if (n.updates > 0 || n.ops_per_point > kMaxInlinedTileOps) continue;
        std::set<int> from;
        bool pointwise = true;
        for (int e : n.in_edges) {
            const FuncEdge &edge = g.edges[size_t(e)];
            if (g.nodes[size_t(edge.producer)].is_input) continue;
            if (!member(edge.producer) || edge.access != Access::Pointwise ||
                g.nodes[size_t(edge.producer)].updates > 0) {
                pointwise = false;
                break;
            }
            from.insert(edge.producer);
        }
        if (!pointwise || from.empty()) continue;
        swapped.insert(m);
        sources.insert(from.begin(), from.end());
    }
    std::set<int> added;
    for (int s : sources)
        if (!t.staged.count(s) || swapped.count(s)) added.insert(s);
    if (swapped.empty() || added.size() >= swapped.size()) return t;
    for (int m : swapped)
        if (!added.count(m)) t.staged.erase(m);
    t.staged.insert(added.begin(), added.end());
    t.note = names(g, swapped) + " inlined into their stencil consumers, and " + names(g, added) +
             " computed per tile instead: " + std::to_string(added.size()) + " tiles in shared memory, not " +
             std::to_string(swapped.size());
    return t;
}

}  // namespace solder::autosched
