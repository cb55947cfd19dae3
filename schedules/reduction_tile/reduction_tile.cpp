#include "schedules/reduction_tile/reduction_tile.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <set>
#include <string>

#include "autosched/model/block_regions.h"
#include "autosched/model/pipeline_funcs.h"
#include "schedules/reduction_tile/reduction_tile_schedule.h"
#include "schedules/stencil_tile/stencil_schedule.h"

namespace solder::autosched {

namespace {

// Members read through stencils among those the steps compute: the one staged per step, and at
// most one more inlined into it (a second stencil level recomputed at each tap). Deeper chains
// would recompute more than they save.
constexpr int kMaxStencilLevelsPerStep = 2;

// The tile a block computes: 32 x 32 points of the root's two dims.
Region tile_of(const FuncNode &O) {
    Region blk = O.region;
    blk[0].max = blk[0].min + std::min<int64_t>(kStencilTileX, blk[0].extent()) - 1;
    blk[1].max = blk[1].min + std::min<int64_t>(kStencilTileY, blk[1].extent()) - 1;
    return blk;
}

// Shared memory per block: the reduction's tile and the per-tile Funcs at their regions per tile,
// the step's Func at one step's share of its region (its points over every step / the steps); each
// padded as the schedule pads them where their element sizes mix (padded_bytes).
int64_t shared_bytes_per_block(const FuncGraph &g, const ReductionTileShape &s, const std::vector<Region> &per_tile) {
    std::vector<int> on_chip = s.per_tile;
    on_chip.push_back(s.reduction);
    on_chip.push_back(s.per_step);
    std::set<int> sizes;
    for (int m : on_chip) sizes.insert(g.nodes[size_t(m)].elem_bytes);
    const int64_t steps = std::max<int64_t>(1, g.nodes[size_t(s.reduction)].rvar_extents[0][0]);
    int64_t bytes = 0;
    for (int m : on_chip) {
        const Region &r = per_tile[size_t(m)];
        const int64_t extent0 = std::max<int64_t>(1, r[0].extent());
        int64_t rest = region_points(r) / extent0;
        if (m == s.per_step) rest = (rest + steps - 1) / steps;
        bytes += padded_bytes(extent0, rest, g.nodes[size_t(m)].elem_bytes, sizes.size() > 1);
    }
    return bytes;
}

}  // namespace

ReductionTileShape reduction_tile_shape(const FuncGraph &g, int root, std::vector<int> members) {
    std::sort(members.begin(), members.end());  // topological: producers first
    ReductionTileShape s;
    auto no = [&](const std::string &why) {
        s.why_not = why;
        return s;
    };
    const FuncNode &O = g.nodes[size_t(root)];
    if (O.dims.size() != 2 || O.updates > 0 || O.is_reduction())
        return no("the root is not a 2-D Func without updates");
    std::vector<bool> inside(g.nodes.size(), false);
    for (int m : members) {
        inside[size_t(m)] = true;
        if (!g.nodes[size_t(m)].is_reduction()) continue;
        if (s.reduction >= 0) return no("more than one reduction is fused");
        s.reduction = m;
    }
    if (s.reduction < 0) return no("no reduction is fused");
    const FuncNode &R = g.nodes[size_t(s.reduction)];
    // (A reduction without a generic reason has one update, written at its own pure vars in order,
    // autosched/model/generic_reason.h: each thread of a tile keeps its points through every step.)
    if (R.dims.size() != 2 || !R.generic.empty() || R.rvar_extents[0].size() != 1)
        return no("the reduction is not one update over one RVar of a 2-D Func at its own points");
    // Between the reduction and the root, pointwise reads only: each thread keeps its points.
    std::vector<bool> below(g.nodes.size(), false);  // the reduction and the members that read it
    below[size_t(s.reduction)] = true;
    for (size_t i = size_t(s.reduction); i < g.nodes.size(); i++) {
        if (!below[i]) continue;
        for (int e : g.nodes[i].out_edges) {
            const FuncEdge &E = g.edges[size_t(e)];
            if (!inside[size_t(E.consumer)] && E.consumer != root) continue;
            if (E.access != Access::Pointwise) return no("the reduction reaches the root other than point for point");
            below[size_t(E.consumer)] = true;
        }
    }
    // Above it (the members it reads, directly or not): the inputs' boundary conditions (members
    // that read one input at one point, or one such member), staged per tile where a step's Func reads them;
    // the rest is the steps' work. Members beside it (read by the root alone) are inlined.
    std::vector<bool> above(g.nodes.size(), false);
    above[size_t(s.reduction)] = true;
    for (size_t i = size_t(s.reduction) + 1; i-- > 0;) {  // consumers before producers
        if (!above[i]) continue;
        for (int e : g.nodes[i].in_edges) {
            const int p = g.edges[size_t(e)].producer;
            if (inside[size_t(p)]) above[size_t(p)] = true;
        }
    }
    std::vector<bool> of_inputs(g.nodes.size(), false);
    std::vector<int> step_funcs;
    for (int m : members) {  // topological: producers first
        if (!above[size_t(m)] || m == s.reduction) continue;
        // (One read of one producer: a Func that reads its producer at two points, such as the
        // difference of an image and its shift, is a step's work.)
        const auto &in = g.nodes[size_t(m)].in_edges;
        const int p = in.size() == 1 && g.edges[size_t(in[0])].sites == 1 ? g.edges[size_t(in[0])].producer : -1;
        const bool only_inputs = p >= 0 && (g.nodes[size_t(p)].is_input || of_inputs[size_t(p)]);
        of_inputs[size_t(m)] = only_inputs;
        if (!only_inputs) step_funcs.push_back(m);
    }
    // The step's Func is computed inside the RVar loop: only Funcs that loop reads may read it, and
    // those only inside it too (a Func inlined into both the steps and the root would read it
    // outside the loop: random user seed 91245, which Halide refused).
    std::function<bool(int)> read_in_steps_only = [&](int m) {
        for (int e : g.nodes[size_t(m)].out_edges) {
            const int c = g.edges[size_t(e)].consumer;
            if (inside[size_t(c)] && !above[size_t(c)]) return false;
            if (c == root) return false;
            if (inside[size_t(c)] && c != s.reduction && !read_in_steps_only(c)) return false;
        }
        return true;
    };
    int stencil_levels = 0;
    for (int m : step_funcs) {
        if (!g.read_through_stencil(m)) continue;
        if (s.per_step < 0 && read_in_steps_only(m)) s.per_step = m;  // the first, nearest the inputs
        stencil_levels++;
    }
    if (s.per_step < 0) return no("no Func the reduction reads is a stencil's producer");
    if (stencil_levels > kMaxStencilLevelsPerStep)
        return no("the reduction reads a chain of more than " + std::to_string(kMaxStencilLevelsPerStep) + " stencils");
    for (int m : members) {
        if (m == s.reduction || m == s.per_step) continue;
        bool staged = false;
        if (of_inputs[size_t(m)])
            for (int e : g.nodes[size_t(m)].out_edges) {
                const int c = g.edges[size_t(e)].consumer;
                staged = staged || (inside[size_t(c)] && !of_inputs[size_t(c)]);
            }
        (staged ? s.per_tile : s.inlined).push_back(m);
    }
    return s;
}

namespace {

// Tiles of a 2-D root whose kernel reduces over a stencil along one RVar (lens_blur's arg-min over
// a cost volume of 5 x 5 window sums): each tile steps through the RVar, computing the step's
// stencil producer in shared memory and folding it into the reduction, so that the volume is
// never stored. Stored, the volume (one point per pixel and step) is written and read back once
// each, and every tile of its kernel stages the inputs again for every step.
class ReductionTileTemplate : public KernelTemplate {
    // The checks before the kernel's shape is worked out (reduction_tile_shape).
    static std::string outside_scope(const KernelContext &c) {
        if (!c.opt.gpu || !c.opt.compute_at) return "only on a GPU, with Funcs computed per block";
        if (!c.reduction_member) return "no reduction is fused";
        return "";
    }

public:
    TemplateKind kind() const override { return TemplateKind::ReductionTile; }

    std::string why_not(const KernelContext &c) const override {
        if (std::string why = outside_scope(c); !why.empty()) return why;
        return reduction_tile_shape(c.g, c.root, c.members).why_not;
    }

    std::optional<KernelChoice> choose(const KernelContext &c) const override {
        if (!outside_scope(c).empty()) return std::nullopt;
        const ReductionTileShape s = reduction_tile_shape(c.g, c.root, c.members);
        if (!s.why_not.empty()) return std::nullopt;
        const FuncNode &O = c.root_node();
        KernelChoice kc;
        kc.members = c.members;
        kc.kind = TemplateKind::ReductionTile;
        kc.inner_dims = 2;
        kc.blocks = blocks_of(O.region[0].extent(), kStencilTileX) * blocks_of(O.region[1].extent(), kStencilTileY);
        const auto whole = c.g.regions_for(c.root, O.region, c.inside);
        const auto per_tile = c.g.regions_for(c.root, tile_of(O), c.inside);
        c.cost.kernel_reads(c.g, c.root, c.inside, whole, per_tile, kc.blocks, kc);
        const int64_t shared = shared_bytes_per_block(c.g, s, per_tile);
        if (shared > c.opt.device.shared_memory_bytes) {
            kc.ok = false;
            kc.offender = s.per_step;
            kc.offender_bytes = shared;
            kc.offense = "computed per tile of " + O.name + "'s kernel at each step of " +
                         c.g.nodes[size_t(s.reduction)].name + "'s RVar, the tile's Funcs would take " +
                         kb_text(shared) + " of shared memory, above the " + kb_text(c.opt.device.shared_memory_bytes) +
                         " a block has";
        }
        return kc;
    }

    std::set<int> computed_apart(const KernelContext &c) const override {
        const ReductionTileShape s = reduction_tile_shape(c.g, c.root, c.members);
        std::set<int> apart(s.per_tile.begin(), s.per_tile.end());
        if (s.per_step >= 0) apart.insert(s.per_step);
        return apart;
    }

    void fill(const KernelPlanContext &c, KernelPlan &k) const override {
        const ReductionTileShape s = reduction_tile_shape(c.g, c.root, c.kc.members);
        ReductionTileParams p;
        p.reduction = c.g.nodes[size_t(s.reduction)].name;
        p.rvar = c.g.nodes[size_t(s.reduction)].function.update(0).schedule().rvars()[0].var;
        // Only Funcs computed in this kernel alone are staged; one that another kernel also inlines
        // (a boundary condition read by a histogram elsewhere) is inlined here too.
        auto ours = [&](int m) { return c.groups[size_t(m)].size() == 1; };
        for (int m : s.per_tile)
            if (ours(m)) p.per_tile.push_back(c.g.nodes[size_t(m)].name);
        if (ours(s.per_step)) p.per_step = c.g.nodes[size_t(s.per_step)].name;
        k.params = p;
    }

    bool one_loop_nest() const override { return true; }

    void apply(ApplyContext &c, const KernelPlan &k) const override {
        const ReductionTileParams &p = *k.get<ReductionTileParams>();
        std::vector<Halide::Func> per_tile;
        for (auto &f : p.per_tile) per_tile.push_back(c.get(f));
        schedule_reduction_tile_kernel(c.w, c.get(k.root), c.get(p.reduction), per_tile,
                                       p.per_step.empty() ? std::optional<Halide::Func>() : c.get(p.per_step));
    }

    std::vector<LaunchShape> launch_shapes(const ShapeContext &c, const KernelPlan &k) const override {
        const FuncNode &O = c.root_node();
        LaunchShape s;
        s.stage = O.name;
        set_grid(s, {blocks_of(O.region[0].extent(), kStencilTileX), blocks_of(O.region[1].extent(), kStencilTileY)}, 2,
                 c.grid);
        s.threads[0] = kStencilThreadsX, s.threads[1] = kStencilThreadsY;
        const KernelChoice kc = choice_of(c.g, k, 2);
        std::vector<bool> inside(c.g.nodes.size(), false);
        for (int m : kc.members) inside[size_t(m)] = true;
        const ReductionTileShape shape = reduction_tile_shape(c.g, c.root, kc.members);
        if (shape.why_not.empty())
            s.shared_bytes = shared_bytes_per_block(c.g, shape, c.g.regions_for(c.root, tile_of(O), inside));
        return {s};
    }
};

}  // namespace

const KernelTemplate &reduction_tile_template() {
    static const ReductionTileTemplate t;
    return t;
}

}  // namespace solder::autosched
