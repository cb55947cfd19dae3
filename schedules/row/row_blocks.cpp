#include "schedules/row/row_blocks.h"

#include <algorithm>

#include "autosched/model/block_regions.h"

namespace solder::autosched {

std::vector<Region> row_block_regions(const FuncGraph &g, int root, const KernelChoice &kc, int64_t rows) {
    std::vector<bool> inside(g.nodes.size(), false);
    for (int m : kc.members) inside[m] = true;
    Region blk = block_region(g.nodes[root].region, kc.inner_dims);
    if (rows > 1 && size_t(kc.inner_dims) < blk.size())
        blk[kc.inner_dims].max = std::min(g.nodes[root].region[kc.inner_dims].max, blk[kc.inner_dims].min + rows - 1);
    return g.regions_for(root, blk, inside);
}

void assign_row_dims(const FuncGraph &g, int root, const KernelChoice &kc, Plan &plan) {
    const auto one = row_block_regions(g, root, kc), two = row_block_regions(g, root, kc, 2);
    const std::string &name = g.nodes[size_t(root)].name;
    for (auto &fp : plan.funcs) {
        if (fp.anchor != name || fp.placement != Placement::ComputeAtBlock) continue;
        const int m = g.find(fp.func);
        const FuncNode &M = g.nodes[size_t(m)];
        for (size_t d = 0; d < M.dims.size() && d < one[size_t(m)].size() && d < two[size_t(m)].size(); d++)
            if (two[size_t(m)][d].extent() > one[size_t(m)][d].extent()) {
                fp.row_dim = M.dims[d];
                break;
            }
    }
}

}  // namespace solder::autosched
