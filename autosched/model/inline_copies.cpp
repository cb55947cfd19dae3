#include "autosched/model/inline_copies.h"

#include <algorithm>

namespace solder::autosched {

std::vector<bool> shared_members(const FuncGraph &g, int root, const std::vector<bool> &inside) {
    std::vector<bool> shared(g.nodes.size(), false);
    // Producers before consumers in node order: walk down from the root.
    for (int p = root - 1; p >= 0; p--) {
        if (!inside[size_t(p)]) continue;
        for (int e : g.nodes[size_t(p)].out_edges) {
            const int c = g.edges[size_t(e)].consumer;
            if (c != root && (!inside[size_t(c)] || shared[size_t(c)])) shared[size_t(p)] = true;
        }
    }
    return shared;
}

InlineCopies inline_copies(const FuncGraph &g, int root, const std::vector<bool> &inside, const std::set<int> &apart,
                           double limit) {
    InlineCopies out;
    std::vector<double> copies(g.nodes.size(), 1.0);
    const std::vector<bool> shared = shared_members(g, root, inside);
    // What a call to `c` brings: one evaluation where `c` is computed apart, else all its copies.
    auto per_call = [&](int c) {
        const bool once = c == root || (apart.count(c) && !shared[size_t(c)]) || g.nodes[size_t(c)].is_reduction();
        return once ? 1.0 : copies[size_t(c)];
    };
    // Producers before consumers in node order: walk down from the root.
    for (int p = root - 1; p >= 0; p--) {
        if (!inside[size_t(p)]) continue;
        double n = 0;
        for (int e : g.nodes[size_t(p)].out_edges) {
            const FuncEdge &E = g.edges[size_t(e)];
            if (E.consumer != root && !inside[size_t(E.consumer)]) continue;
            n += per_call(E.consumer) * double(std::max(1, E.sites));
        }
        copies[size_t(p)] = std::max(1.0, n);
        const bool inlined = !g.nodes[size_t(p)].is_reduction() && (!apart.count(p) || shared[size_t(p)]);
        if (!inlined) continue;
        out.total += copies[size_t(p)] * double(std::max<int64_t>(1, g.nodes[size_t(p)].ops_per_point));
        if (out.member < 0 && out.total > limit) out.member = p, out.copies = copies[size_t(p)];
    }
    out.per_node = std::move(copies);
    return out;
}

}  // namespace solder::autosched
