#include "schedules/stencil_tile/stencil_tile.h"

#include <algorithm>

#include "autosched/model/block_regions.h"
#include "schedules/stencil_tile/stencil_schedule.h"

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
        for (int k : shapes) {
            KernelChoice kc = best;
            kc.inner_dims = k;
            Region blk = O.region;
            blk[0].max = blk[0].min + std::min<int64_t>(kStencilTileX, blk[0].extent()) - 1;
            blk[1].max = blk[1].min + std::min<int64_t>(kStencilTileY, blk[1].extent()) - 1;
            for (int d = k; d < rank; d++) blk[d].max = blk[d].min;
            kc.blocks = tiles * blocks_for(O.region, k);
            c.cost.kernel_reads(c.g, c.root, c.inside, whole, c.g.regions_for(c.root, blk, c.inside), kc.blocks, kc);
            if (!found || kc.bytes_read < best.bytes_read ||
                (kc.bytes_read == best.bytes_read && kc.flops < best.flops))
                best = kc, found = true;
        }
        return best;
    }

    void fill(const KernelPlanContext &c, KernelPlan &k) const override {
        const FuncNode &O = c.g.nodes[size_t(c.root)];
        StencilTileParams p;
        p.inner_dims = c.kc.inner_dims;
        if (c.opt.gpu && O.dims.size() >= 2 && O.updates == 0)
            p.whole_tiles = O.region[0].extent() >= kStencilTileX && O.region[1].extent() >= kStencilTileY;
        k.params = p;
    }

    bool one_loop_nest() const override { return true; }

    void apply(ApplyContext &c, const KernelPlan &k) const override {
        const StencilTileParams &p = *k.get<StencilTileParams>();
        const bool is_output = std::find(k.outputs.begin(), k.outputs.end(), k.root) != k.outputs.end();
        schedule_stencil_kernel(c.w, c.get(k.root), p.inner_dims, p.whole_tiles, is_output, c.at_block(k).funcs,
                                c.target);
    }
};

}  // namespace

const KernelTemplate &stencil_tile_template() {
    static const StencilTileTemplate t;
    return t;
}

}  // namespace solder::autosched
