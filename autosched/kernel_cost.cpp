#include "autosched/kernel_cost.h"

#include "schedules/fused_templates.h"

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
                KernelChoice &kc, bool inlined = false) {
    kc.bytes_read = 0;
    kc.flops = 0;
    // Members recomputed wherever they are read (`inlined`): a Func read at several points per
    // point of its consumer through a stencil or a resampling (a pyramid's 2x2 average) is
    // evaluated that many times per point, and so on down a chain of them.
    std::vector<double> recompute(g.nodes.size(), 1.0);
    for (int p = root - 1; inlined && p >= 0; p--) {
        if (!inside[size_t(p)]) continue;
        double m = 1;
        for (int e : g.nodes[size_t(p)].out_edges) {
            const FuncEdge &E = g.edges[size_t(e)];
            if (E.consumer != root && !inside[size_t(E.consumer)]) continue;
            const bool spread = E.access == Access::Stencil || E.access == Access::Remap;
            m = std::max(m, recompute[size_t(E.consumer)] * (spread ? E.sites : 1));
        }
        recompute[size_t(p)] = m;
    }
    for (size_t p = 0; p < g.nodes.size(); p++) {
        if (per_block[p].empty()) continue;
        const FuncNode &n = g.nodes[p];
        bool leaf = int(p) != root && !inside[p];
        if (leaf) {
            int64_t once = region_points(whole[p]) * n.elem_bytes;
            int64_t again = region_points(per_block[p]) * n.elem_bytes * blocks;
            kc.bytes_read += once <= opt.device.l2_bytes / 2 ? once : std::max(once, again);
        } else {
            kc.flops += double(n.ops_per_point) * double(region_points(per_block[p])) * double(blocks) * recompute[p] +
                        double(n.reduction_points) * 2.0 * double(region_points(per_block[p])) * double(blocks) /
                            std::max<int64_t>(1, n.points());
        }
    }
}

// Split-K applies to a reduction whose one update is associative, has pure args in order, and
// whose RVars all have constant extents (they are fused and cut into equal slices).
bool splittable_reduction(const FuncNode &R) {
    if (R.updates != 1 || R.dims.empty()) return false;
    const auto &def = R.function.update(0);
    const auto &args = def.args();
    if (args.size() != R.dims.size()) return false;
    for (size_t d = 0; d < args.size(); d++) {
        const auto *v = args[d].as<Halide::Internal::Variable>();
        if (!v || v->name != R.dims[d]) return false;
    }
    for (auto &rv : def.schedule().rvars())
        if (!Halide::Internal::as_const_int(rv.extent)) return false;
    return Halide::Internal::prove_associativity(R.name, args, def.values()).associative();
}

// Results along the innermost dim the partials' threads need at least.
constexpr int64_t kMinSplitWidth = 16;

// A kernel whose blocks cannot fill the GPU while one reduction in it sums many rows per result
// (nvfuser's column sums: 1024 results of 57344 rows each, one block) takes split-K: the rows are
// cut into slices, each summed by its own blocks into a partial written to global memory, and the
// kernel's blocks add the partials. The reduction is the root of a kernel of its own, or the one
// heavy reduction a row kernel computes per block, unless it has few results per block (the row
// template already splits those across the block's threads) or few rows.
void consider_split_k(const FuncGraph &g, const PlannerOptions &opt, int root, KernelChoice &kc) {
    const int64_t full = int64_t(opt.device.sms) * opt.device.blocks_per_sm_to_fill;
    if (!opt.gpu || !kc.ok || kc.blocks >= full) return;
    int R = -1;
    if (kc.template_name == "pointwise" && g.nodes[root].is_reduction()) {
        for (int m : kc.members)
            if (g.nodes[m].is_reduction()) return;
        R = root;
    } else if (kc.template_name == "row") {
        // Any other reduction must be light (nvfuser sums over a unit dim): it still runs unsplit.
        for (int m : kc.members) {
            if (!g.nodes[m].is_reduction() || g.nodes[m].reduction_points <= kMinSliceRows) continue;
            if (R >= 0) return;
            R = m;
        }
    }
    // Threads go across the results' innermost dim: too few there (a row reduction's results
    // are one per row) and the slices would read with one thread per block, strided.
    if (R < 0 || g.nodes[R].region[0].extent() < kMinSplitWidth || !splittable_reduction(g.nodes[R])) return;
    if (R != root) {
        const auto per_block = row_block_regions(g, root, kc);
        if (per_block[R].empty() || region_points(per_block[R]) <= 8) return;
    }
    const FuncNode &n = g.nodes[R];
    const int64_t rows = n.reduction_points;
    const int64_t base = ((n.region[0].extent() + kSplitThreads - 1) / kSplitThreads) * (n.points() / n.region[0].extent());
    int64_t k = std::min((full + base - 1) / base, rows / kMinSliceRows);
    if (k < 2) return;
    kc.split_func = R;
    kc.split_k = k;
    kc.split_blocks = base * k;
    kc.split_bytes = k * n.points() * n.elem_bytes;
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
    if (!O.generic.empty()) {
        // The generic template (schedules/generic.h): tiles over the root's dims, members inlined.
        best.template_name = "generic";
        best.blocks = std::max<int64_t>(1, O.points() / 256);
        auto whole = g.regions_for(root, O.region, inside);
        cost_reads(g, opt, root, inside, whole, whole, 1, best);
        return best;
    }
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
            cost_reads(g, opt, root, inside, whole, g.regions_for(root, blk, inside), blocks_for(O.region, 1), best,
                       true);
            consider_split_k(g, opt, root, best);
            return best;
        }
        // Tiles of the two innermost dims (the stencil template's, schedules/fused_templates.h). Outer dims are grid dims (inner_dims 2) or, when
        // they are few points (image channels), loops inside each tile (inner_dims = rank): then
        // producers shared by the channels (a gray image) are computed once per tile, not once
        // per channel. The fewest bytes win, then the least recompute.
        const int64_t tiles = ((O.region[0].extent() + kStencilTileX - 1) / kStencilTileX) *
                              ((O.region[1].extent() + kStencilTileY - 1) / kStencilTileY);
        bool found = false;
        std::vector<int> shapes{2};
        if (rank > 2 && blocks_for(O.region, 2) <= kMaxChannelsInTile) shapes.push_back(rank);
        for (int k : shapes) {
            KernelChoice kc = best;
            kc.inner_dims = k;
            Region blk = O.region;
            blk[0].max = blk[0].min + std::min<int64_t>(kStencilTileX, blk[0].extent()) - 1;
            blk[1].max = blk[1].min + std::min<int64_t>(kStencilTileY, blk[1].extent()) - 1;
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
        consider_split_k(g, opt, root, kc);
        // Fewest bytes first; then least recompute (a block that owns more dims computes shared
        // reductions once, not once per inner block); then least time (bandwidth left idle by
        // too few blocks: nvfuser's row kernel as 56 blocks of 1024 rows, not 57344 of one).
        // Recompute before time: Halide skips a select's other branches per block (puzzler's 16
        // slices) where this model counts them, and PoCL stalls compiling the barriers that
        // skipping puts under conditions.
        const double t = choice_us(opt.device, kc, O.bytes()), tb = found ? choice_us(opt.device, best, O.bytes()) : 0;
        auto less = [](double a, double b) { return a < b * (1 - 1e-9); };
        bool better = !found || kc.bytes_read < best.bytes_read ||
                      (kc.bytes_read == best.bytes_read &&
                       (less(kc.flops, best.flops) || (!less(best.flops, kc.flops) && less(t, tb))));
        if (better) best = kc, found = true;
    }
    return best;
}

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

double kernel_us(const DeviceProfile &d, int64_t bytes, double flops, int64_t blocks) {
    const int64_t full = int64_t(d.sms) * d.blocks_per_sm_to_fill;
    double fill = blocks > 0 && blocks < full ? double(full) / double(blocks) : 1.0;
    return std::max(double(bytes) / d.bandwidth_bytes_per_s, flops / d.flops_per_s) * fill * 1e6 + d.launch_us;
}

double choice_us(const DeviceProfile &d, const KernelChoice &kc, int64_t root_bytes) {
    if (kc.split_func < 0) return kernel_us(d, kc.bytes_read + root_bytes, kc.flops, kc.blocks);
    // Zero the partials; sum the slices (all the reading and arithmetic); the root's blocks add them.
    return kernel_us(d, kc.split_bytes, 0, kc.split_blocks) +
           kernel_us(d, kc.bytes_read + kc.split_bytes, kc.flops, kc.split_blocks) +
           kernel_us(d, kc.split_bytes + root_bytes, 0, kc.blocks);
}

}  // namespace solder::autosched
