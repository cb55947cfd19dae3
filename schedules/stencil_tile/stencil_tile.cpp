#include "schedules/stencil_tile/stencil_tile.h"

#include <algorithm>
#include <set>

#include "autosched/model/block_regions.h"
#include "autosched/model/pipeline_funcs.h"
#include "schedules/pointwise/register_tile.h"
#include "schedules/stencil_tile/stencil_reductions.h"
#include "schedules/stencil_tile/stencil_schedule.h"
#include "schedules/stencil_tile/stencil_staging.h"

namespace solder::autosched {

namespace {

// Outer dims of a stencil root with at most this many points in all may loop inside each tile.
constexpr int64_t kMaxChannelsInTile = 4;

bool has_stencil_member(const FuncGraph &g, int root, const std::vector<bool> &inside) {
    for (auto &e : g.edges)
        if ((e.access == Access::Stencil || e.window) && inside[e.producer] &&
            (inside[e.consumer] || e.consumer == root))
            return true;
    return false;
}

// Whether `c` reads a pipeline input: directly, through Halide's wrapper of an ImageParam, or
// through a Func of `input_like` (passes_on below).
bool reads_input(const Halide::Internal::Call *c, const std::set<std::string> &input_like) {
    using Halide::Internal::Call;
    if (c->call_type == Call::Image) return true;
    return c->call_type == Call::Halide && c->func.defined() &&
           (input_like.count(c->name) || is_input_wrapper(Halide::Internal::Function(c->func)));
}

// Whether some Func reads a pipeline input at an index not clamped (a BoundaryConditions Func clamps
// its reads). Edge tiles shifted inwards, in a specialization for outputs that span a tile, must
// then not be used where sizes come at run time: Halide takes the input region a pipeline needs
// over both branches of the specialization, without its condition, and the shifted branch of an
// output narrower than a tile starts before the output's min. An input sized exactly for the
// output's stencil (a blur of a W x H output from a W + 2 x H + 2 input) then fails Halide's bounds
// check ("accessed at -3, which is before the min (-1)"), though no read there would happen.
class UnclampedInputRead : public Halide::Internal::IRVisitor {
public:
    explicit UnclampedInputRead(const std::set<std::string> &input_like) : input_like_(input_like) {}
    bool found = false;
    // The pure dims, beyond its two innermost, of the Func whose definition is visited: only those
    // two (and RVars) count in an index, since the tiles shift those, and a channel index (a colour
    // matrix's c) reads the same points in every tile.
    std::set<std::string> outer_dims;

private:
    using IRVisitor::visit;
    const std::set<std::string> &input_like_;
    // likely(max(min(x, hi), lo)): BoundaryConditions' in-bounds index.
    static bool is_likely_clamp(const Halide::Expr &e) {
        using namespace Halide::Internal;
        const auto *c = e.as<Call>();
        return c && c->is_intrinsic(Call::likely) && c->args.size() == 1 &&
               (c->args[0].as<Max>() || c->args[0].as<Min>());
    }
    // max(min(x, hi), lo), as BoundaryConditions write it, also under `likely`; or a select whose
    // branches are both clamped, or whose in-bounds branch is a likely clamp and the other reflects
    // (mirror_image, mirror_interior).
    static bool clamped(const Halide::Expr &e) {
        using namespace Halide::Internal;
        if (e.as<Max>() || e.as<Min>()) return true;
        if (const auto *c = e.as<Call>(); c && c->is_intrinsic(Call::likely) && c->args.size() == 1)
            return clamped(c->args[0]);
        if (const auto *s = e.as<Select>())
            return (clamped(s->true_value) && clamped(s->false_value)) || is_likely_clamp(s->true_value) ||
                   is_likely_clamp(s->false_value);
        return false;
    }
    // Whether `e` varies with a loop that counts (outer_dims): a constant index, or one from
    // parameters only, reads the same points wherever the tiles fall. So does an RVar, whose
    // domain no tile moves (a convolution's weights `k(r)` in a buffer).
    bool varies(const Halide::Expr &e) const {
        struct Loops : Halide::Internal::IRVisitor {
            const std::set<std::string> *outer = nullptr;
            bool found = false;
            using IRVisitor::visit;
            void visit(const Halide::Internal::Variable *v) override {
                found = found || (is_loop_var(v) && !v->reduction_domain.defined() && !outer->count(v->name));
            }
        } l;
        l.outer = &outer_dims;
        e.accept(&l);
        return l.found;
    }
    // Whether Halide bounds `e` over every value of the loops it varies with (an index modulo an
    // extent, say).
    static bool bounded(const Halide::Expr &e) {
        using namespace Halide::Internal;
        struct Loops : IRVisitor {
            Scope<Interval> scope;
            using IRVisitor::visit;
            void visit(const Variable *v) override {
                if (is_loop_var(v) && !scope.contains(v->name)) scope.push(v->name, Interval::everything());
            }
        } l;
        e.accept(&l);
        return bounds_of_expr_in_scope(e, l.scope).is_bounded();
    }
    void visit(const Halide::Internal::Call *op) override {
        if (reads_input(op, input_like_))
            for (auto &a : op->args) found = found || (varies(a) && !clamped(a) && !bounded(a));
        IRVisitor::visit(op);
    }
};

// A Func that only passes an input on, point for point (BoundaryConditions' own wrapper of it).
bool passes_on(const FuncNode &n, const std::set<std::string> &input_like) {
    using namespace Halide::Internal;
    if (n.updates || n.function.definition().values().size() != 1) return false;
    Halide::Expr e = n.function.definition().values()[0];
    while (const auto *c = e.as<Cast>()) e = c->value;
    const auto *c = e.as<Call>();
    if (!c || c->args.size() != n.dims.size() || !reads_input(c, input_like)) return false;
    for (size_t d = 0; d < c->args.size(); d++) {
        const auto *v = c->args[d].as<Variable>();
        if (!v || v->name != n.dims[d]) return false;
    }
    return true;
}

// Over `root` and every Func it reads, directly or not: the regions a shifted tile of `root` asks for.
bool reads_an_input_unclamped(const FuncGraph &g, int root) {
    std::set<std::string> input_like;
    for (auto &n : g.nodes)
        if (!n.is_input && passes_on(n, input_like)) input_like.insert(n.name);
    std::vector<bool> upstream(g.nodes.size(), false);
    upstream[size_t(root)] = true;
    for (int i = root; i >= 0; i--)  // topological: producers come first
        if (upstream[size_t(i)])
            for (int e : g.nodes[size_t(i)].in_edges) upstream[size_t(g.edges[size_t(e)].producer)] = true;
    UnclampedInputRead v(input_like);
    for (size_t i = 0; i < g.nodes.size(); i++) {
        const FuncNode &n = g.nodes[i];
        if (!upstream[i] || n.is_input || input_like.count(n.name)) continue;
        v.outer_dims = std::set<std::string>(n.dims.begin() + std::min<size_t>(2, n.dims.size()), n.dims.end());
        for (int stage = 0; stage <= n.updates && !v.found; stage++) {
            const auto &def = stage == 0 ? n.function.definition() : n.function.update(stage - 1);
            for (auto &e : def.values()) e.accept(&v);
            for (auto &e : def.args()) e.accept(&v);
        }
        if (v.found) return true;
    }
    return false;
}

// A tile's shape over a root of `rank` dims whose `inner_dims` innermost it keeps inside a block:
// kStencilTileX x kStencilTileY, the dims between whole, one point of the rest.
std::vector<int64_t> tile_shape(int rank, int inner_dims) {
    std::vector<int64_t> shape(size_t(rank), 1);
    shape[0] = kStencilTileX, shape[1] = kStencilTileY;
    for (int d = 2; d < inner_dims && d < rank; d++) shape[size_t(d)] = kWhole;
    return shape;
}

// Whether the Funcs one tile computes in shared memory (`staged`, those stencil_tile_staging stages) fit in
// the device's default 48 KB: a convolution's padded input, read over every input channel by each
// output point, is 34 x 34 x channels per tile (295 KB for 64 channels of floats), which no block
// may have. Where they do not, the search stores the one total_naming_offender names.
//
// The largest tile counts (largest_per_block: a tile reading its mirror image across the image
// needs more in the middle than at the edge), and what grows with the run-time sizes does not fit
// (grows_per_block): a random pipeline's tile read a mirrored boundary condition across the whole
// width, 2.5 KB at its estimate and 70 KB at 2048 x 1536.
bool tile_fits(const KernelContext &c, const std::set<int> &staged, const std::vector<int64_t> &shape,
               KernelChoice &kc) {
    if (!c.opt.gpu || !c.opt.compute_at) return true;
    const auto largest = largest_per_block(c.g, c.root, c.root_node().region, shape, c.inside);
    const auto per_tile = largest_per_block_at_most(c.g, c.root, shape, c.inside, largest);
    std::vector<std::pair<int, int64_t>> on_chip;
    for (int m : staged) on_chip.emplace_back(m, region_points(per_tile[size_t(m)]) * c.g.nodes[size_t(m)].elem_bytes);
    const int64_t shared = total_naming_offender(on_chip, c.opt.device.shared_memory_bytes, kc);
    const Growth grown = c.g.fixed_sizes() ? Growth{}
                                           : grows_per_block(c.g, c.root, shape, c.inside,
                                                             std::vector<int>(staged.begin(), staged.end()), largest);
    if (grown.node >= 0) {
        kc.ok = false;
        kc.offender = grown.node;
        kc.offender_bytes = grown.here * c.g.nodes[size_t(grown.node)].elem_bytes;
        kc.offense =
            "computed per tile of " + c.root_node().name + "'s kernel, " + c.g.nodes[size_t(grown.node)].name +
            " needs " + std::to_string(grown.here) + " points a tile at the estimates and " +
            std::to_string(grown.there) +
            " with inputs and parameters twice as large: its shared memory would grow with the sizes the pipeline runs "
            "at, and the kernel would not launch at a larger one";
        return false;
    }
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

// Whether a Func the tiles would compute in shared memory (stencil_tile_staging) needs more than
// the tile's one point along a root dim from `inner_dims` out, which each block takes one point
// of: a stencil along z of a volume, whose planes each block would compute 1 + 2 x its halo times
// over. Measured on the H200, three steps of a 7-point heat stencil on a 256^3 volume took 423 us
// with the second step computed per 32 x 32 x 1 tile of the third's kernel (Anderson2021: 256),
// 209 us with each step stored and read at its taps through the caches.
bool halo_along_untiled_dim(const KernelContext &c, const std::set<int> &staged, int inner_dims,
                            const std::vector<Region> &per_tile) {
    const FuncNode &O = c.root_node();
    if (!c.opt.gpu) return false;  // (the host's tiles are loops of its own: no shared memory)
    for (int m : staged) {
        const FuncNode &M = c.g.nodes[size_t(m)];
        for (size_t d = size_t(inner_dims); d < O.dims.size(); d++) {
            // (The dim of the same name; a boundary condition's implicit vars by position.)
            size_t j = size_t(std::find(M.dims.begin(), M.dims.end(), O.dims[d]) - M.dims.begin());
            if (j == M.dims.size() && M.dims.size() == O.dims.size()) j = d;
            if (j < M.dims.size() && j < per_tile[size_t(m)].size() && per_tile[size_t(m)][j].extent() > 1) return true;
        }
    }
    return false;
}

// Whether a Func the tiles would compute in shared memory has fewer rows x columns per tile than the
// block has threads, and walks more than kMaxChannelsInTile points of its dims past the first two
// in each thread: the block's threads take its rows and columns (deal_producer_to_threads), and
// those dims are loops inside each thread, most threads idle meanwhile. A bilateral grid's
// blurred bins, read at each pixel's intensity, are 5 x 5 cells of 12 intensities x 2 channels per
// 32 x 32 tile: 25 of a block's 256 threads each walked 24 points, one after another, of 25 taps
// each. Measured on the H200 (2560 x 1536, 8 x 8 cells): 316 us with the grid's two blurs per tile
// of the slicing kernel, 274 us with one, 79 us with both stored (Anderson2021: 134).
bool serial_walk_per_thread(const KernelContext &c, const std::set<int> &staged, const std::vector<Region> &per_tile) {
    if (!c.opt.gpu) return false;
    for (int m : staged) {
        const Region &r = per_tile[size_t(m)];
        if (r.size() < 3 || r[0].extent() * r[1].extent() >= kStencilThreadsX * kStencilThreadsY) continue;
        int64_t walked = 1;
        for (size_t d = 2; d < r.size(); d++) walked *= std::max<int64_t>(1, r[d].extent());
        if (walked > kMaxChannelsInTile) return true;
    }
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
        if (std::string why = stencil_reductions_why_not(c); !why.empty()) return why;
        // Its tiles are loops of the root's pure stage: producers computed per tile there would be
        // missing from the update's loops (Halide refuses the schedule).
        if (O.updates > 0) return "the root has update stages";
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
        // (Whatever the shape. Of the members only this kernel computes: Halide computes a Func at one
        // place, so those other kernels read too are inlined at each call, and costed so.)
        const std::set<int> staged = stencil_tile_staging(c.g, c.root, c.own).staged;
        for (int k : shapes) {
            KernelChoice kc = best;
            kc.inner_dims = k;
            Region blk = O.region;
            blk[0].max = blk[0].min + std::min<int64_t>(kStencilTileX, blk[0].extent()) - 1;
            blk[1].max = blk[1].min + std::min<int64_t>(kStencilTileY, blk[1].extent()) - 1;
            for (int d = k; d < rank; d++) blk[d].max = blk[d].min;
            kc.blocks = tiles * blocks_for(O.region, k);
            const auto per_tile = c.g.regions_for(c.root, blk, c.inside);
            if (halo_along_untiled_dim(c, staged, k, per_tile) || serial_walk_per_thread(c, staged, per_tile)) continue;
            c.cost.kernel_reads(c.g, c.root, c.inside, whole, per_tile, kc.blocks, kc, false, false, &c.shared);
            kc.flops += c.cost.step_flops(c.g, c.inside, per_tile, kc.blocks, staged);
            if (!tile_fits(c, staged, tile_shape(rank, k), kc)) {
                if (too_big.offender < 0) too_big = kc;
                continue;
            }
            if (!found || kc.bytes_read < best.bytes_read ||
                (kc.bytes_read == best.bytes_read && kc.flops < best.flops))
                best = kc, found = true;
        }
        if (!found && too_big.offender < 0) return std::nullopt;
        return found ? best : too_big;
    }

    std::set<int> computed_apart(const KernelContext &c) const override {
        return stencil_tile_staging(c.g, c.root, c.own).staged;
    }

    void fill(const KernelPlanContext &c, KernelPlan &k) const override {
        const FuncNode &O = c.g.nodes[size_t(c.root)];
        StencilTileParams p;
        p.inner_dims = c.kc.inner_dims;
        if (c.opt.gpu && O.dims.size() >= 2 && O.updates == 0) {
            p.whole_tiles = O.region[0].extent() >= kStencilTileX && O.region[1].extent() >= kStencilTileY;
            if (p.whole_tiles && !c.g.fixed_sizes() && reads_an_input_unclamped(c.g, c.root)) {
                p.whole_tiles = false;
                p.guarded_because = "it reads an input unclamped (Halide would ask for input beyond the output's "
                                    "stencil where the output is narrower than a tile)";
            }
        }
        for (int m : c.kc.members)
            if (c.g.read_through_resampling(m)) p.resampled.push_back(c.g.nodes[size_t(m)].name);
        if (c.opt.gpu && c.opt.compute_at) {
            std::vector<int> own;  // (as the planner stages them: the members no other kernel reads)
            for (int m : c.kc.members)
                if (c.groups[size_t(m)].size() == 1) own.push_back(m);
            const std::set<int> staged = stencil_tile_staging(c.g, c.root, own).staged;
            for (int m : c.kc.members)
                if (c.g.nodes[size_t(m)].is_reduction() && !staged.count(m))
                    p.per_point.push_back(c.g.nodes[size_t(m)].name);
            if (!p.per_point.empty())
                for (const std::string &name : register_tile_members(
                         c.g, c.root, c.kc.members, [&](int m) { return c.groups[size_t(m)].size() == 1; }))
                    if (std::count(p.per_point.begin(), p.per_point.end(), name)) p.rows_per_thread.push_back(name);
        }
        k.params = p;
    }

    bool one_loop_nest() const override { return true; }

    void apply(ApplyContext &c, const KernelPlan &k) const override {
        const StencilTileParams &p = *k.get<StencilTileParams>();
        const bool is_output = std::find(k.outputs.begin(), k.outputs.end(), k.root) != k.outputs.end();
        std::vector<Halide::Func> per_point;
        for (const std::string &name : p.per_point) per_point.push_back(c.get(name));
        schedule_stencil_kernel(c.w, c.get(k.root), p.inner_dims, p.whole_tiles, is_output, c.at_block(k).funcs,
                                c.target, p.resampled, per_point, p.rows_per_thread);
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
        std::vector<bool> inside(c.g.nodes.size(), false);
        for (int m : choice_of(c.g, k, p.inner_dims).members) inside[size_t(m)] = true;
        std::set<int> sizes;
        for (int m : at_block_nodes(c, k)) sizes.insert(c.g.nodes[size_t(m)].elem_bytes);
        // (The largest tile's, as Halide sizes it: largest_per_block.)
        s.shared_bytes = block_shared_bytes(
            c, k, largest_per_block(c.g, c.root, O.region, tile_shape(rank, p.inner_dims), inside), sizes.size() > 1);
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

bool stencil_tiles_guarded(const FuncGraph &g, int root) {
    const FuncNode &O = g.nodes[size_t(root)];
    if (O.dims.size() < 2) return false;
    if (O.region[0].extent() < kStencilTileX || O.region[1].extent() < kStencilTileY) return true;
    return !g.fixed_sizes() && (!O.is_output || reads_an_input_unclamped(g, root));
}

const KernelTemplate &stencil_tile_template() {
    static const StencilTileTemplate t;
    return t;
}

}  // namespace solder::autosched
