#include "schedules/row/row_staging.h"

#include <algorithm>
#include <map>

namespace solder::autosched {

std::vector<StagedInput> choose_staged_inputs(const FuncGraph &g, int root, const KernelChoice &kc,
                                              const std::vector<Region> &per_block,
                                              const std::vector<std::set<int>> &groups, int rows_per_block,
                                              const std::vector<Region> *larger) {
    const int N = int(g.nodes.size());
    std::vector<bool> inside(N, false);
    for (int m : kc.members) inside[m] = true;
    // The row template computes the root and each reduction it owns (once per block); everything
    // else inside is inlined into them.
    auto computed = [&](int n) {
        return n == root || (inside[n] && g.nodes[n].is_reduction() && groups[n].size() == 1);
    };
    struct Use {
        std::set<int> stages, readers;
        bool ok = true;
    };
    std::map<int, Use> leaves;
    for (int s = 0; s < N; s++) {
        if (!computed(s)) continue;
        std::vector<int> todo{s};
        std::set<int> seen{s};
        while (!todo.empty()) {
            int c = todo.back();
            todo.pop_back();
            for (int e : g.nodes[c].in_edges) {
                const FuncEdge &E = g.edges[e];
                int p = E.producer;
                if (inside[p]) {
                    if (!computed(p) && seen.insert(p).second) todo.push_back(p);
                    continue;
                }
                Use &u = leaves[p];
                u.stages.insert(s);
                u.readers.insert(c);
                // A reader another kernel also recomputes would read the staged copy there too; a
                // reduction reading it directly has its reads moved into rfactor's intermediate,
                // which Func::in cannot name in advance.
                if (E.access == Access::DataDependent || (c != root && groups[c] != std::set<int>{root}) ||
                    (c != root && g.nodes[c].is_reduction()))
                    u.ok = false;
            }
        }
    }
    std::vector<StagedInput> picked;
    for (auto &[p, u] : leaves) {
        if (!u.ok || u.stages.size() < 2 || per_block[p].empty()) continue;
        const int64_t points = region_points(per_block[p]);
        if (points < 32) continue;  // a scalar or a few: nothing worth a pass of its own
        if (larger && size_t(p) < larger->size() && region_points((*larger)[size_t(p)]) > points) continue;
        StagedInput s;
        s.func = g.nodes[p].name;
        for (int r : u.readers) s.readers.push_back(g.nodes[r].name);
        s.bytes_per_block = points * g.nodes[p].elem_bytes * rows_per_block;
        s.row_extent = per_block[p][0].extent();
        picked.push_back(s);
    }
    std::sort(picked.begin(), picked.end(),
              [](const StagedInput &a, const StagedInput &b) { return a.bytes_per_block < b.bytes_per_block; });
    std::vector<StagedInput> fit;
    int64_t used = 0;
    for (auto &s : picked)
        if (used + s.bytes_per_block <= kMaxStagedBytesPerBlock) used += s.bytes_per_block, fit.push_back(s);
    return fit;
}

}  // namespace solder::autosched
