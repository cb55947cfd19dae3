// Regions of a kernel's root that its blocks cover, when a block owns the root's innermost dims.
#pragma once
#include <cstdint>
#include <vector>

#include "autosched/model/func_graph.h"

namespace solder::autosched {

// The region of root region `r` one block covers when it owns the `k` innermost dims.
inline Region block_region(const Region &r, int k) {
    Region b = r;
    for (size_t d = size_t(k); d < b.size(); d++) b[d].max = b[d].min;
    return b;
}

// A block's extent along each dim of a root: `kWhole` where a block owns the dim whole (a row),
// else the points it takes (a tile's 32, one along the grid's outer dims).
constexpr int64_t kWhole = -1;
// The block shape of one owning the `k` innermost dims of `rank`, one point of each other dim.
inline std::vector<int64_t> owning_innermost(size_t rank, int k) {
    std::vector<int64_t> shape(rank, 1);
    for (size_t d = 0; d < rank && d < size_t(k); d++) shape[d] = kWhole;
    return shape;
}

// Each node's larger region of `most` and `per` (by points; empty: not needed), into `most`.
inline void keep_larger(std::vector<Region> &most, const std::vector<Region> &per) {
    if (most.empty()) {
        most = per;
        return;
    }
    for (size_t n = 0; n < per.size() && n < most.size(); n++)
        if (!per[n].empty() && (most[n].empty() || region_points(per[n]) > region_points(most[n]))) most[n] = per[n];
}

// Whether every block of `shape` over the root needs regions of the same extents of each node: every
// read of the root and of the nodes inside its kernel moves with its reader (FuncEdge::
// moves_with_consumer), and every read of one producer follows the same root dims among those the
// blocks move along (a union of reads that move differently, c(r, y) and c(x, r), spans more rows
// the farther the block is from row 0).
inline bool blocks_alike(const FuncGraph &g, int root, const std::vector<bool> &inside,
                         const std::vector<int64_t> &shape) {
    // For each node reached, the root dim each of its dims follows as the blocks move (-1: none).
    std::vector<std::vector<int>> follow(g.nodes.size());
    std::vector<bool> reached(g.nodes.size(), false);
    const size_t rank = g.nodes[size_t(root)].dims.size();
    for (size_t d = 0; d < rank; d++)
        follow[size_t(root)].push_back(d < shape.size() && shape[d] != kWhole ? int(d) : -1);
    reached[size_t(root)] = true;
    for (int n = root; n >= 0; n--) {  // producers come before their consumers
        if (!reached[size_t(n)] || (n != root && (size_t(n) >= inside.size() || !inside[size_t(n)]))) continue;
        for (int ei : g.nodes[size_t(n)].in_edges) {
            const FuncEdge &e = g.edges[size_t(ei)];
            if (!e.moves_with_consumer()) return false;
            for (auto &site : e.site_vars) {
                std::vector<int> f;
                for (int v : site)
                    f.push_back(v < 0 || size_t(v) >= follow[size_t(n)].size() ? -1 : follow[size_t(n)][size_t(v)]);
                if (!reached[size_t(e.producer)]) {
                    follow[size_t(e.producer)] = f;
                    reached[size_t(e.producer)] = true;
                } else if (follow[size_t(e.producer)] != f) {
                    return false;
                }
            }
        }
    }
    return true;
}

// What each node needs per block of `shape` over root region `r`, the most any block needs: the
// first, middle and last block along every dim are asked, and each node keeps its largest answer.
// (Halide sizes a per-block allocation by the largest block: a read of channel c and c - C/2,
// clamped at 0, needs one channel in the first block and C/2 + 1 in the middle one.) Where every
// block needs the same extents (blocks_alike: reads at the readers' vars plus constant offsets, a
// chain of stencils), the first block alone.
inline std::vector<Region> largest_per_block(const FuncGraph &g, int root, const Region &r,
                                             const std::vector<int64_t> &shape, const std::vector<bool> &inside) {
    std::vector<Region> most;
    const int positions = blocks_alike(g, root, inside, shape) ? 1 : 3;
    for (int at = 0; at < positions; at++) {
        Region b = r;
        for (size_t d = 0; d < b.size() && d < shape.size(); d++) {
            if (shape[d] == kWhole) continue;
            const int64_t e = std::min(shape[d], r[d].extent()), blocks = (r[d].extent() + e - 1) / e;
            const int64_t i = at == 0 ? 0 : at == 1 ? (blocks - 1) / 2 : blocks - 1;
            b[d].min = std::min(r[d].min + i * e, r[d].max - e + 1);  // (the last block shifted inwards)
            b[d].max = b[d].min + e - 1;
        }
        keep_larger(most, g.regions_for(root, b, inside));
    }
    return most;
}

// `here` (largest_per_block over the root's region at the estimates) with, where integer
// parameters declare maxima, what blocks need there (FuncGraph::at_declared_max: what a block
// keeps on chip must fit at the most they take): each node's larger.
inline std::vector<Region> largest_per_block_at_most(const FuncGraph &g, int root, const std::vector<int64_t> &shape,
                                                     const std::vector<bool> &inside, std::vector<Region> here) {
    if (const FuncGraph *m = g.at_declared_max())
        keep_larger(here, largest_per_block(*m, root, m->nodes[size_t(root)].region, shape, inside));
    return here;
}

// The first of `on_chip` (nodes a block of `shape` keeps on chip) that needs more points per block
// at larger run-time sizes (FuncGraph::at_larger_sizes) than in `here` (largest_per_block at the
// estimates), with both counts; -1 where none does, or the sizes are fixed. Its shared memory
// would grow with the sizes the pipeline runs at: planned at one, the kernel would fail to launch
// at a larger one.
struct Growth {
    int node = -1;
    int64_t here = 0, there = 0;
};
inline Growth grows_per_block(const FuncGraph &g, int root, const std::vector<int64_t> &shape,
                              const std::vector<bool> &inside, const std::vector<int> &on_chip,
                              const std::vector<Region> &here) {
    const FuncGraph *big = g.at_larger_sizes();
    if (!big || on_chip.empty()) return {};
    const auto there = largest_per_block(*big, root, big->nodes[size_t(root)].region, shape, inside);
    for (int m : on_chip) {
        const int64_t a = region_points(here[size_t(m)]), b = region_points(there[size_t(m)]);
        if (b > a) return {m, a, b};
    }
    return {};
}

// Blocks over the dims from `k` out.
inline int64_t blocks_for(const Region &r, int k) {
    int64_t n = 1;
    for (size_t d = size_t(k); d < r.size(); d++) n *= r[d].extent();
    return n;
}

}  // namespace solder::autosched
