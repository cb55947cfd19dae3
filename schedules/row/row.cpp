#include "schedules/row/row.h"

#include <functional>
#include <map>
#include <set>

#include <algorithm>

#include "autosched/model/block_regions.h"
#include "autosched/model/pipeline_funcs.h"
#include "schedules/row/row_blocks.h"
#include "schedules/row/row_launches.h"
#include "schedules/row/row_schedule.h"
#include "schedules/row/row_staging.h"
#include "schedules/row/warp_rows.h"
#include "schedules/split_k/split_k_plan.h"

namespace solder::autosched {

namespace {

// A short row (puzzler's 64-wide slices) is covered by row / width threads, one `width`-wide access
// each, when that is 32 or 64: then a block holds several rows (below) instead of leaving most of
// 256 threads idle. Longer rows keep 256 / rows threads each. Not fewer than a warp: measured on
// the H100, puzzler with 16 threads of 4-wide accesses per row took 41 us, with 32 of 2-wide 37 us
// (its 16 slices unrolled per thread spilled registers at the 64-register cap).
//
// A row shorter than a warp (the 9 orientation bins of a histogram per cell) takes a warp, its
// tail threads idle: 256 threads for 9 points left 32026 blocks of 8 warps with 9 busy threads
// (53 us on the H200).
bool short_row_threads(int64_t extent, int width, int64_t *threads) {
    if (width == 1 && extent > 1 && extent < 32) {
        if (threads) *threads = 32;
        return true;
    }
    if (width < 1 || extent % width != 0) return false;
    int64_t t = extent / width;
    if (t != 32 && t != 64) return false;
    if (threads) *threads = t;
    return true;
}

// 16-byte accesses for the root's stores (8 bf16, 4 f32), when the width divides what one block
// covers of the innermost dim: 256 threads' worth (or a whole short row). No wider than 16 bytes
// of any input the kernel reads at the root's points either: measured on the H100, int8_quant's
// row kernel (f32 rows in, int8 out) took 75.5 us with 8-wide accesses (32 bytes of f32 per
// thread and step), 69.5 with 4, 71.2 with 2.
int row_vector_width(const FuncGraph &g, int root, const KernelChoice &kc) {
    const FuncNode &O = g.nodes[size_t(root)];
    if (O.updates > 0 || O.dims.empty() || O.elem_bytes > 8) return 1;
    int widest = O.elem_bytes;
    std::vector<int> readers{root};
    readers.insert(readers.end(), kc.members.begin(), kc.members.end());
    for (int m : readers)
        for (int e : g.nodes[size_t(m)].in_edges) {
            const FuncEdge &E = g.edges[size_t(e)];
            if (E.access == Access::Pointwise && g.nodes[size_t(E.producer)].is_input)
                widest = std::max(widest, g.nodes[size_t(E.producer)].elem_bytes);
        }
    const int64_t extent = O.region[0].extent();
    for (int v = std::max(1, std::min(8, 16 / widest)); v > 1; v /= 2)
        if (extent % (256 * int64_t(v)) == 0 || short_row_threads(extent, v, nullptr)) return v;
    return 1;
}

// Rows one block of a row kernel owns. One row per block leaves a block's reductions to a few
// threads for their last, serial steps (16 partials, then 16 more) while the rest wait at barriers:
// on the H100 each reduction of a 4096-wide row cost rmsnorm, layernorm and softmax 25-35 us. With
// 8 rows per block, each row reduced by one warp, those steps run for 8 rows at once. Only for
// rows long enough to give each lane 16 elements, row counts the rows divide, with every
// block-level Func one result per row, and while there are still many waves of blocks: measured on
// the H100, nvfuser's output kernel (57344 rows of 1024) gained (690 -> 645 us for the app) while
// 8192 rows of 4096 as 1024 blocks of 8 lost a third (rmsnorm 67 -> 89 us: under two waves).
// Short rows (`k.row_threads`, see short_row_threads) fill the block's 256 threads with rows, down
// to as many as keep one wave of blocks. Inner dims between the row and the rows must all be
// unrolled in each thread (`k.unrolled_dims`).
constexpr int64_t kMinWavesForRows = 8;

int rows_per_block_for(const FuncGraph &g, const FuncNode &O, const KernelChoice &kc, const Plan &plan,
                       const DeviceProfile &d, const RowParams &k) {
    const int rank = int(O.dims.size());
    if (rank <= kc.inner_dims || kc.split_func >= 0) return 1;
    for (int m : kc.members) {
        const FuncPlan *p = plan.find(g.nodes[m].name);
        if (p && p->placement == Placement::ComputeAtBlock && p->block_points != 1) return 1;
    }
    if (int(k.unrolled_dims.size()) != kc.inner_dims - 1) return 1;
    // A block's rows read through a clamp (a boundary condition of the root): Halide bounds the
    // threads of the block's reductions over those rows by interval arithmetic over every block, and
    // a run-time extent then sets them (a random tensor pipeline's 4 rows per block through
    // repeat_edge launched W x W threads: 4489 at W = 67, over the device's limit). One row per
    // block is bounded exactly.
    if (!g.fixed_sizes()) {
        std::set<int> in_kernel(kc.members.begin(), kc.members.end());
        in_kernel.insert(g.find(O.name));
        for (int m : in_kernel)
            for (int ei : g.nodes[size_t(m)].in_edges) {
                const FuncEdge &e = g.edges[size_t(ei)];
                if (in_kernel.count(e.producer) && e.access == Access::Remap &&
                    reads_at_clamped_index(g.nodes[size_t(m)].function, g.nodes[size_t(e.producer)].name))
                    return 1;
            }
    }
    const int64_t extent = O.region[0].extent(), rows = O.region[kc.inner_dims].extent();
    const int64_t full = int64_t(d.sms) * d.blocks_per_sm_to_fill;
    if (k.row_threads > 0) {
        int r = 256 / k.row_threads;
        while (r > 1 && (rows % r != 0 || kc.blocks / r < full)) r /= 2;
        return r;
    }
    if (kc.inner_dims != 1) return 1;
    int r = 8;
    while (r > 1 && (extent < 16 * (256 / r) || rows % r != 0 || kc.blocks / r < kMinWavesForRows * full)) r /= 2;
    // The rows resident at once (blocks of 256 threads, as many as an SM's threads hold) within half
    // the L2: a row kernel reads its row once per reduction and again for its output, and rows
    // evicted between passes come back from DRAM. Measured on the H100, causal_softmax (2048-wide
    // f32 rows, read three times) with 4 rows per block, 34 MB of rows in flight, 249.6 us (a
    // quarter of its second pass missed L2); with 2, 17 MB, 223.2 us; with 1, 429.1 us.
    const int64_t blocks_per_sm = std::max<int64_t>(1, d.max_threads_per_sm / 256);
    while (r > 1 && int64_t(d.sms) * blocks_per_sm * r * extent * O.elem_bytes > d.l2_bytes / 2) r /= 2;
    return r;
}

// A pipeline that runs at any size: a reduction computed per block whose points there grow with
// the extents the block owns (a convolution's row, where a row's mean is one point) takes shared
// memory, and threads, in proportion to a run-time extent: planned at 56 points, it fails to launch
// at 12289 (48 KB of floats). Such a block shape is refused, naming the reduction: the search then
// stores it, or tries another shape.
void grows_with_rows(const KernelContext &c, const Region &blk, const std::vector<Region> &per_block,
                     KernelChoice &kc) {
    Region one = blk;
    for (int d = 0; d < kc.inner_dims && d < int(one.size()); d++) one[size_t(d)].max = one[size_t(d)].min;
    const auto small = c.g.regions_for(c.root, one, c.inside);
    for (int m : c.members) {
        const FuncNode &M = c.g.nodes[size_t(m)];
        if (!M.is_reduction() || region_points(per_block[size_t(m)]) <= region_points(small[size_t(m)])) continue;
        kc.ok = false;
        kc.offender = m;
        kc.offender_bytes = region_points(per_block[size_t(m)]) * M.elem_bytes;
        kc.offense = "its points per block of " + c.root_node().name + "'s kernel (" +
                     std::to_string(region_points(per_block[size_t(m)])) +
                     " at the estimates) grow with the run-time extents each block owns, and so would its shared "
                     "memory and threads: the sizes are known only when the pipeline runs";
        return;
    }
}

// The same for what grows with the sizes the pipeline runs at but not with the block's own extents:
// a reduction computed per block whose region there follows an RDom over the input's extents (a
// per-point channel sum that a plane's mean, also per block, reads over the whole plane) or a
// parameter. Found by planning the block at larger sizes (grows_per_block): a random tensor
// pipeline's block kept 6 KB of such a sum at 48 x 32 and failed to launch at 512 x 256 (512 KB).
// `largest`: largest_per_block of the block shape at the estimates.
void grows_with_sizes(const KernelContext &c, int k, const std::vector<Region> &largest, KernelChoice &kc) {
    std::vector<int> reductions;
    for (int m : c.members)
        if (c.g.nodes[size_t(m)].is_reduction()) reductions.push_back(m);
    const Growth grown =
        grows_per_block(c.g, c.root, owning_innermost(c.root_node().dims.size(), k), c.inside, reductions, largest);
    if (grown.node < 0) return;
    kc.ok = false;
    kc.offender = grown.node;
    kc.offender_bytes = grown.here * c.g.nodes[size_t(grown.node)].elem_bytes;
    kc.offense =
        "its points per block of " + c.root_node().name + "'s kernel (" + std::to_string(grown.here) +
        " at the estimates, " + std::to_string(grown.there) +
        " with inputs and parameters twice as large) grow with the sizes the pipeline runs at, and so would its shared "
        "memory: planned at one size, the kernel would not launch at a larger one";
}

// Levels of the kernel's per-block reductions (`inside`: its members): a reduction that reads
// another, directly or through inlined Funcs, is a level above it. A block walks its rows once per
// level, then once more for the root.
int reduction_levels(const FuncGraph &g, const std::vector<bool> &inside, const std::vector<int> &members) {
    std::map<int, int> level;
    std::function<int(int)> above = [&](int n) {  // the highest level among the reductions n reads
        int most = 0;
        for (int e : g.nodes[size_t(n)].in_edges) {
            const int p = g.edges[size_t(e)].producer;
            if (!inside[size_t(p)]) continue;
            if (!g.nodes[size_t(p)].is_reduction()) {
                most = std::max(most, above(p));
                continue;
            }
            auto it = level.find(p);
            if (it == level.end()) it = level.emplace(p, 1 + above(p)).first;
            most = std::max(most, it->second);
        }
        return most;
    };
    int levels = 0;
    for (int m : members)
        if (g.nodes[size_t(m)].is_reduction()) {
            if (!level.count(m)) level[m] = 1 + above(m);
            levels = std::max(levels, level[m]);
        }
    return levels;
}

// A block owns the root's k innermost dims; fused reductions live in shared memory (normalizations,
// softmax, the row reductions of layer-norm backward).
class RowTemplate : public KernelTemplate {
public:
    TemplateKind kind() const override { return TemplateKind::Row; }

    std::string why_not(const KernelContext &) const override { return ""; }  // the last resort: any kernel

    std::optional<KernelChoice> choose(const KernelContext &c) const override {
        const FuncGraph &g = c.g;
        const FuncNode &O = c.root_node();
        const int root = c.root, rank = int(O.dims.size());
        const std::vector<bool> &inside = c.inside;
        KernelChoice best;
        best.members = c.members;
        const auto whole = g.regions_for(root, O.region, inside);
        const int levels = reduction_levels(g, inside, c.members);
        bool found = false;
        for (int k = 1; k <= rank; k++) {
            // A block owning every dim only for 1-D roots that are small (the template has no loop to
            // keep outer dims inside one block).
            if (k == rank && (rank > 1 || O.points() > 65536)) break;
            KernelChoice kc;
            kc.kind = TemplateKind::Row;
            kc.inner_dims = k;
            kc.members = c.members;
            kc.blocks = blocks_for(O.region, k);
            Region blk = block_region(O.region, k);
            auto per_block = g.regions_for(root, blk, inside);
            // Shared memory: the most any block needs (its first block may need less), at the most
            // any parameter's declared max takes it to.
            const auto shape = owning_innermost(O.dims.size(), k);
            const auto largest = largest_per_block(g, root, O.region, shape, inside);
            const auto at_most = largest_per_block_at_most(g, root, shape, inside, largest);
            std::vector<std::pair<int, int64_t>> on_chip;
            for (int m : c.members)
                if (g.nodes[m].is_reduction())
                    on_chip.emplace_back(m, region_points(at_most[m]) * g.nodes[m].elem_bytes);
            const int64_t shared = total_naming_offender(on_chip, c.opt.device.shared_memory_bytes, kc);
            kc.ok = shared <= c.opt.device.shared_memory_bytes;
            if (kc.ok && !c.g.fixed_sizes()) grows_with_rows(c, blk, per_block, kc);
            if (kc.ok && c.opt.gpu && !c.g.fixed_sizes()) grows_with_sizes(c, k, largest, kc);
            if (!kc.ok) {
                // Keep the offender of the smallest block shape, costed all the same: scoring a
                // schedule Solder would not build still needs its bytes.
                if (!found && best.offender < 0)
                    best = kc, c.cost.kernel_reads(g, root, inside, whole, per_block, kc.blocks, best, true);
                continue;
            }
            c.cost.kernel_reads(g, root, inside, whole, per_block, kc.blocks, kc, true);
            const int64_t resident =
                std::clamp<int64_t>((kc.blocks + c.opt.device.sms - 1) / std::max(1, c.opt.device.sms), 1,
                                    std::max<int64_t>(1, c.opt.device.max_threads_per_sm / 256));
            if (levels > 1 &&
                kc.bytes_read / std::max<int64_t>(1, kc.blocks) * resident > c.opt.device.l1_bytes_per_sm / 2)
                kc.rewalk_bytes = int64_t(levels - 1) * kc.bytes_read;
            consider_split_k(g, c.opt, root, kc);
            // Fewest bytes first; then least recompute (a block that owns more dims computes shared
            // reductions once, not once per inner block); then least time (bandwidth left idle by
            // too few blocks: nvfuser's row kernel as 56 blocks of 1024 rows, not 57344 of one).
            // Recompute before time: Halide skips a select's other branches per block (puzzler's 16
            // slices) where this model counts them, and PoCL stalls compiling the barriers that
            // skipping puts under conditions.
            const double t = c.cost.choice_us(kc, O.bytes()), tb = found ? c.cost.choice_us(best, O.bytes()) : 0;
            auto less = [](double a, double b) { return a < b * (1 - 1e-9); };
            bool better = !found || kc.bytes_read < best.bytes_read ||
                          (kc.bytes_read == best.bytes_read &&
                           (less(kc.flops, best.flops) || (!less(best.flops, kc.flops) && less(t, tb))));
            if (better) best = kc, found = true;
        }
        // (A 1-D root too long for one block, with no shape found, keeps the default choice.)
        return best;
    }

    void fill(const KernelPlanContext &c, KernelPlan &k) const override {
        const FuncGraph &g = c.g;
        const KernelChoice &kc = c.kc;
        const FuncNode &O = g.nodes[size_t(c.root)];
        const bool gpu = c.opt.gpu;
        RowParams p;
        p.inner_dims = kc.inner_dims;
        p.vector_width = gpu ? row_vector_width(g, c.root, kc) : 1;
        if (gpu) {
            int64_t threads = 0;
            if (short_row_threads(O.region[0].extent(), p.vector_width, &threads)) p.row_threads = int(threads);
            // Unrolled middle dims: a stack's select over one (puzzler's 16 slices) folds to one
            // branch per iteration; rolled, each element computed all 16.
            for (int dim = 1; dim < kc.inner_dims && dim < int(O.dims.size()); dim++)
                if (O.region[dim].extent() <= kMaxUnrolledRowDim)
                    p.unrolled_dims.push_back({dim, O.region[dim].extent()});
        }
        // Warps along one row per block where the row is long enough, before several rows per
        // block: measured on the H100, nvfuser_2146's output kernel (57344 rows of 1024, four row
        // sums) took 194 us with 8 rows per block and the shared-memory tree, 115 us with 2 warps
        // per row. (rows_per_block is still 1 here: the shape is judged for one row per block.)
        WarpRowShape ws;
        if (gpu) {
            ws = warp_row_shape(g, c.plan, p, c.root);
            if (ws.warps > 0) {
                p.warps = ws.warps;
                p.row_threads = 0;  // the warps' 32 x warps threads, not a short row's
                p.row_extent = O.region[0].extent();
                p.vector_width = ws.vector_width;
            } else if (!ws.why_not.empty()) {
                c.plan.explanations.push_back({O.name, "", ws.why_not});
            }
        }
        // (A kernel that writes side outputs keeps one row per block: with several, the rows of a
        // block at the end of a run-time extent came out wrong on OpenCL, the per-block sums of the
        // last, partial block sized by the union of the root's and the side output's guarded rows.)
        p.rows_per_block =
            gpu && ws.warps == 0 && k.side.empty() ? rows_per_block_for(g, O, kc, c.plan, c.opt.device, p) : 1;
        if (p.rows_per_block > 1) assign_row_dims(g, c.root, kc, c.plan);
        if (gpu && c.opt.stage_rows && ws.warps == 0) {
            // (The staged rows at larger run-time sizes: an input row that grows is not staged.)
            const FuncGraph *big = g.at_larger_sizes();
            const std::vector<Region> larger = big ? row_block_regions(*big, c.root, kc) : std::vector<Region>{};
            p.staged = choose_staged_inputs(g, c.root, kc, row_block_regions(g, c.root, kc), c.groups, p.rows_per_block,
                                            big ? &larger : nullptr);
        }
        k.params = p;
    }

    bool one_loop_nest() const override { return true; }

    void apply(ApplyContext &c, const KernelPlan &k) const override {
        const RowParams &p = *k.get<RowParams>();
        std::vector<StagedRow> staged;
        if (is_gpu_target(c.target))
            for (auto &s : p.staged) {
                std::vector<Halide::Func> readers;
                for (auto &r : s.readers) readers.push_back(c.get(r));
                const int64_t row_bytes = s.row_extent * std::max(1, c.get(s.func).type().bytes());
                staged.push_back(
                    {c.w.in(c.get(s.func), readers), s.row_extent, row_bytes > 0 ? s.bytes_per_block / row_bytes : 1});
            }
        RowShape shape;
        shape.inner_dims = p.inner_dims;
        shape.vector_width = p.vector_width;
        shape.rows_per_block = p.rows_per_block;
        shape.row_threads = p.row_threads;
        shape.warps = p.warps;
        shape.row_extent = p.row_extent;
        shape.unrolled_dims = p.unrolled_dims;
        const auto at = c.at_block(k);
        std::vector<Halide::Func> side, shared;
        for (auto &so : k.side) (so.shared ? shared : side).push_back(c.get(so.func));
        schedule_row_kernel(c.w, c.get(k.root), shape, at.funcs, at.points, at.row_dims, at.thread_dims,
                            at.thread_extents, staged, c.target, side, shared);
    }

    std::vector<LaunchShape> launch_shapes(const ShapeContext &c, const KernelPlan &k) const override {
        return {row_launch_shape(c, k)};
    }
};

}  // namespace

const KernelTemplate &row_template() {
    static const RowTemplate t;
    return t;
}

}  // namespace solder::autosched
