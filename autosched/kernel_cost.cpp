#include "autosched/kernel_cost.h"

#include <algorithm>

namespace solder::autosched {

namespace {

// Outer dims of a stencil root with at most this many points in all may loop inside each tile.
constexpr int64_t kMaxChannelsInTile = 4;

// Region of a root covered by one block that owns its `k` innermost dims.
Region block_region(const Region &r, int k) {
    Region b = r;
    for (size_t d = size_t(k); d < b.size(); d++) b[d].max = b[d].min;
    return b;
}

int64_t blocks_for(const Region &r, int k) {
    int64_t n = 1;
    for (size_t d = size_t(k); d < r.size(); d++) n *= r[d].extent();
    return n;
}

// Bytes a kernel reads from global memory: each leaf (input or other root) it touches, per block
// times blocks; a leaf whose whole footprint fits in half of L2 is served from L2 after its first
// read and counted once.
void cost_reads(const FuncGraph &g, const PlannerOptions &opt, int root, const std::vector<bool> &inside,
                const std::vector<Region> &whole, const std::vector<Region> &per_block, int64_t blocks,
                KernelChoice &kc) {
    kc.bytes_read = 0;
    kc.flops = 0;
    for (size_t p = 0; p < g.nodes.size(); p++) {
        if (per_block[p].empty()) continue;
        const FuncNode &n = g.nodes[p];
        bool leaf = int(p) != root && !inside[p];
        if (leaf) {
            int64_t once = region_points(whole[p]) * n.elem_bytes;
            int64_t again = region_points(per_block[p]) * n.elem_bytes * blocks;
            kc.bytes_read += once <= opt.device.l2_bytes / 2 ? once : std::max(once, again);
        } else {
            kc.flops += double(n.ops_per_point) * double(region_points(per_block[p])) * double(blocks) +
                        double(n.reduction_points) * 2.0 * double(region_points(per_block[p])) * double(blocks) /
                            std::max<int64_t>(1, n.points());
        }
    }
}

bool has_stencil_member(const FuncGraph &g, int root, const std::vector<bool> &inside) {
    for (auto &e : g.edges)
        if (e.access == Access::Stencil && inside[e.producer] && (inside[e.consumer] || e.consumer == root)) return true;
    return false;
}

}  // namespace

KernelChoice choose_kernel(const FuncGraph &g, const PlannerOptions &opt, int root, const std::vector<int> &members) {
    std::vector<bool> inside(g.nodes.size(), false);
    for (int m : members) inside[m] = true;
    const FuncNode &O = g.nodes[root];
    int rank = int(O.dims.size());
    bool reduction_member = false;
    for (int m : members) reduction_member |= g.nodes[m].is_reduction();

    KernelChoice best;
    best.members = members;
    if (rank == 0) {
        best.template_name = "single";
        auto whole = g.regions_for(root, O.region, inside);
        cost_reads(g, opt, root, inside, whole, whole, 1, best);
        return best;
    }
    if (members.empty() && O.is_reduction() && opt.single_kernel_groups && opt.gpu && O.updates == 1 && rank >= 1 &&
        O.function.update(0).schedule().rvars().size() == 1) {
        // A reduction alone in its kernel, with the row template's block reduction: one block per
        // result, its reduction split across the block's threads (SOLDER_ENABLE=single_kernel_groups).
        best.template_name = "block_reduction";
        best.blocks = O.points();
        const auto whole = g.regions_for(root, O.region, inside);
        cost_reads(g, opt, root, inside, whole, whole, 1, best);
        return best;
    }
    if (!reduction_member || O.is_reduction()) {
        best.template_name = has_stencil_member(g, root, inside) && rank >= 2 ? "stencil_tile" : "pointwise";
        const auto whole = g.regions_for(root, O.region, inside);
        if (best.template_name == "pointwise") {
            // Blocks of 256 along the innermost dim; reads are costed per row of it, which its
            // blocks tile exactly.
            Region blk = O.region;
            for (int d = 1; d < rank; d++) blk[d].max = blk[d].min;
            best.blocks = ((O.region[0].extent() + 255) / 256) * blocks_for(O.region, 1);
            cost_reads(g, opt, root, inside, whole, g.regions_for(root, blk, inside), blocks_for(O.region, 1), best);
            return best;
        }
        // 32x8 tiles of the two innermost dims. Outer dims are grid dims (inner_dims 2) or, when
        // they are few points (image channels), loops inside each tile (inner_dims = rank): then
        // producers shared by the channels (a gray image) are computed once per tile, not once
        // per channel. The fewest bytes win, then the least recompute.
        const int64_t tiles = ((O.region[0].extent() + 31) / 32) * ((O.region[1].extent() + 7) / 8);
        bool found = false;
        std::vector<int> shapes{2};
        if (rank > 2 && blocks_for(O.region, 2) <= kMaxChannelsInTile) shapes.push_back(rank);
        for (int k : shapes) {
            KernelChoice kc = best;
            kc.inner_dims = k;
            Region blk = O.region;
            blk[0].max = blk[0].min + std::min<int64_t>(32, blk[0].extent()) - 1;
            blk[1].max = blk[1].min + std::min<int64_t>(8, blk[1].extent()) - 1;
            for (int d = k; d < rank; d++) blk[d].max = blk[d].min;
            kc.blocks = tiles * blocks_for(O.region, k);
            cost_reads(g, opt, root, inside, whole, g.regions_for(root, blk, inside), kc.blocks, kc);
            if (!found || kc.bytes_read < best.bytes_read ||
                (kc.bytes_read == best.bytes_read && kc.flops < best.flops))
                best = kc, found = true;
        }
        return best;
    }
    // Row template: a block owns the k innermost dims; fused reductions live in shared memory.
    const auto whole = g.regions_for(root, O.region, inside);
    bool found = false;
    for (int k = 1; k <= rank; k++) {
        // A block owning every dim only for 1-D roots that are small (the template has no loop to
        // keep outer dims inside one block).
        if (k == rank && (rank > 1 || O.points() > 65536)) break;
        KernelChoice kc;
        kc.template_name = "row";
        kc.inner_dims = k;
        kc.members = members;
        kc.blocks = blocks_for(O.region, k);
        Region blk = block_region(O.region, k);
        auto per_block = g.regions_for(root, blk, inside);
        int64_t shared = 0;
        for (int m : members)
            if (g.nodes[m].is_reduction()) {
                int64_t b = region_points(per_block[m]) * g.nodes[m].elem_bytes;
                shared += b;
                if (b > kc.offender_bytes) kc.offender = m, kc.offender_bytes = b;
            }
        kc.ok = shared <= opt.device.shared_memory_bytes;
        if (!kc.ok) {
            // Keep the offender of the smallest block shape, costed all the same: scoring a
            // schedule Solder would not build still needs its bytes.
            if (!found && best.offender < 0) best = kc, cost_reads(g, opt, root, inside, whole, per_block, kc.blocks, best);
            continue;
        }
        cost_reads(g, opt, root, inside, whole, per_block, kc.blocks, kc);
        // Fewest bytes first; among equals, least recompute (a block that owns more dims computes
        // shared reductions once instead of once per inner block).
        bool better = !found || kc.bytes_read < best.bytes_read ||
                      (kc.bytes_read == best.bytes_read && kc.flops < best.flops);
        if (better) best = kc, found = true;
    }
    return best;
}

std::vector<Region> row_block_regions(const FuncGraph &g, int root, const KernelChoice &kc) {
    std::vector<bool> inside(g.nodes.size(), false);
    for (int m : kc.members) inside[m] = true;
    return g.regions_for(root, block_region(g.nodes[root].region, kc.inner_dims), inside);
}

double kernel_us(const DeviceProfile &d, int64_t bytes, double flops) {
    return std::max(double(bytes) / d.bandwidth_bytes_per_s, flops / d.flops_per_s) * 1e6 + d.launch_us;
}

}  // namespace solder::autosched
