#include "schedules/stencil_tile/stencil_tile.h"

#include <algorithm>
#include <set>

#include "autosched/model/block_regions.h"
#include "schedules/stencil_tile/stencil_schedule.h"
#include "schedules/stencil_tile/stencil_staging.h"

namespace solder::autosched {

namespace {

// Outer dims of a stencil root with at most this many points in all may loop inside each tile.
constexpr int64_t kMaxChannelsInTile = 4;

bool has_stencil_member(const FuncGraph &g, int root, const std::vector<bool> &inside) {
    for (auto &e : g.edges)
        if (e.access == Access::Stencil && inside[e.producer] && (inside[e.consumer] || e.consumer == root))
            return true;
    return false;
}

// Whether the Funcs one tile computes in shared memory (those stencil_tile_staging stages) fit in
// the device's default 48 KB: a convolution's padded input, read over every input channel by each
// output point, is 34 x 34 x channels per tile (295 KB for 64 channels of floats), which no block
// may have. Where they do not, the search stores the one total_naming_offender names.
bool tile_fits(const KernelContext &c, const std::vector<Region> &per_tile, KernelChoice &kc) {
    if (!c.opt.gpu || !c.opt.compute_at) return true;
    std::vector<std::pair<int, int64_t>> on_chip;
    for (int m : stencil_tile_staging(c.g, c.root, c.members).staged)
        on_chip.emplace_back(m, region_points(per_tile[size_t(m)]) * c.g.nodes[size_t(m)].elem_bytes);
    const int64_t shared = total_naming_offender(on_chip, c.opt.device.shared_memory_bytes, kc);
    if (shared <= c.opt.device.shared_memory_bytes) {
        kc.offender = kc.cut_offender = -1, kc.offender_bytes = 0;
        return true;
    }
    kc.ok = false;
    kc.offense = "computed per tile of " + c.root_node().name + "'s kernel, the tile's Funcs would take " +
                 kb_text(shared) + " of shared memory, above the " + kb_text(c.opt.device.shared_memory_bytes) +
                 " a block has";
    return false;
}

// Tiles of the two innermost dims, stencil producers computed per tile (blur, unsharp, Harris).
class StencilTileTemplate : public KernelTemplate {
public:
    TemplateKind kind() const override { return TemplateKind::StencilTile; }

    // Outer dims are grid dims (inner_dims 2) or, when they are few points (image channels), loops
    // inside each tile (inner_dims = rank): then producers shared by the channels (a gray image)
    // are computed once per tile, not once per channel. The fewest bytes win, then the least
    // recompute.
    std::string why_not(const KernelContext &c) const override {
        const FuncNode &O = c.root_node();
        if (c.reduction_member && !O.is_reduction()) return "a reduction is fused into a root that is not one";
        if (O.dims.size() < 2) return "the root has fewer than 2 dims to tile";
        if (!has_stencil_member(c.g, c.root, c.inside)) return "no Func in the kernel is read through a stencil";
        return "";
    }

    std::optional<KernelChoice> choose(const KernelContext &c) const override {
        const FuncNode &O = c.root_node();
        const int rank = int(O.dims.size());
        if (!why_not(c).empty()) return std::nullopt;
        KernelChoice best;
        best.members = c.members;
        best.kind = TemplateKind::StencilTile;
        const auto whole = c.g.regions_for(c.root, O.region, c.inside);
        const int64_t tiles = ((O.region[0].extent() + kStencilTileX - 1) / kStencilTileX) *
                              ((O.region[1].extent() + kStencilTileY - 1) / kStencilTileY);
        bool found = false;
        std::vector<int> shapes{2};
        if (rank > 2 && blocks_for(O.region, 2) <= kMaxChannelsInTile) shapes.push_back(rank);
        KernelChoice too_big;  // the first shape whose tile does not fit, when none does
        for (int k : shapes) {
            KernelChoice kc = best;
            kc.inner_dims = k;
            Region blk = O.region;
            blk[0].max = blk[0].min + std::min<int64_t>(kStencilTileX, blk[0].extent()) - 1;
            blk[1].max = blk[1].min + std::min<int64_t>(kStencilTileY, blk[1].extent()) - 1;
            for (int d = k; d < rank; d++) blk[d].max = blk[d].min;
            kc.blocks = tiles * blocks_for(O.region, k);
            const auto per_tile = c.g.regions_for(c.root, blk, c.inside);
            c.cost.kernel_reads(c.g, c.root, c.inside, whole, per_tile, kc.blocks, kc);
            if (!tile_fits(c, per_tile, kc)) {
                if (too_big.offender < 0) too_big = kc;
                continue;
            }
            if (!found || kc.bytes_read < best.bytes_read ||
                (kc.bytes_read == best.bytes_read && kc.flops < best.flops))
                best = kc, found = true;
        }
        return found ? best : too_big;
    }

    void fill(const KernelPlanContext &c, KernelPlan &k) const override {
        const FuncNode &O = c.g.nodes[size_t(c.root)];
        StencilTileParams p;
        p.inner_dims = c.kc.inner_dims;
        if (c.opt.gpu && O.dims.size() >= 2 && O.updates == 0)
            p.whole_tiles = O.region[0].extent() >= kStencilTileX && O.region[1].extent() >= kStencilTileY;
        for (int m : c.kc.members)
            if (c.g.read_through_resampling(m)) p.resampled.push_back(c.g.nodes[size_t(m)].name);
        k.params = p;
    }

    bool one_loop_nest() const override { return true; }

    void apply(ApplyContext &c, const KernelPlan &k) const override {
        const StencilTileParams &p = *k.get<StencilTileParams>();
        const bool is_output = std::find(k.outputs.begin(), k.outputs.end(), k.root) != k.outputs.end();
        schedule_stencil_kernel(c.w, c.get(k.root), p.inner_dims, p.whole_tiles, is_output, c.at_block(k).funcs,
                                c.target, p.resampled);
    }

    // One launch: kStencilTileX x kStencilTileY tiles of 32 x 8 threads, the dims from inner_dims out
    // as further grid dims, the producers computed per tile in shared memory, halo included.
    std::vector<LaunchShape> launch_shapes(const ShapeContext &c, const KernelPlan &k) const override {
        const FuncNode &O = c.root_node();
        const StencilTileParams &p = *k.get<StencilTileParams>();
        const int rank = int(O.dims.size());
        LaunchShape s;
        s.stage = O.name;
        if (rank < 2) return {s};
        std::vector<int64_t> e{blocks_of(O.region[0].extent(), kStencilTileX),
                               blocks_of(O.region[1].extent(), kStencilTileY)};
        for (int d = std::max(2, p.inner_dims); d < rank; d++) e.push_back(O.region[size_t(d)].extent());
        set_grid(s, e, 2, c.grid);
        s.threads[0] = kStencilThreadsX, s.threads[1] = kStencilThreadsY;
        Region blk = O.region;
        blk[0].max = blk[0].min + std::min<int64_t>(kStencilTileX, blk[0].extent()) - 1;
        blk[1].max = blk[1].min + std::min<int64_t>(kStencilTileY, blk[1].extent()) - 1;
        for (int d = p.inner_dims; d < rank; d++) blk[size_t(d)].max = blk[size_t(d)].min;
        std::vector<bool> inside(c.g.nodes.size(), false);
        for (int m : choice_of(c.g, k, p.inner_dims).members) inside[size_t(m)] = true;
        std::set<int> sizes;
        for (int m : at_block_nodes(c, k)) sizes.insert(c.g.nodes[size_t(m)].elem_bytes);
        s.shared_bytes = block_shared_bytes(c, k, c.g.regions_for(c.root, blk, inside), sizes.size() > 1);
        // Sizes known only at run time: whole tiles where the output spans one (a specialization),
        // guarded tiles elsewhere, a kernel each; either launches, on the same grid, with no more
        // shared memory than a whole tile's.
        const bool is_output = std::find(k.outputs.begin(), k.outputs.end(), k.root) != k.outputs.end();
        if (p.whole_tiles && !c.plan.fixed_sizes && is_output && O.updates == 0 && O.function.outputs() == 1) {
            LaunchShape guarded = s;
            guarded.stage = O.name + " (edge tiles guarded)";
            return {s, guarded};
        }
        return {s};
    }
};

}  // namespace

const KernelTemplate &stencil_tile_template() {
    static const StencilTileTemplate t;
    return t;
}

}  // namespace solder::autosched
