#include "schedules/pointwise/pointwise.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "autosched/model/block_regions.h"
#include "autosched/model/contraction.h"
#include "autosched/model/generic_reason.h"
#include "autosched/model/pipeline_funcs.h"
#include "schedules/pointwise/pointwise_reads.h"
#include "schedules/pointwise/pointwise_schedule.h"
#include "schedules/pointwise/register_tile.h"
#include "schedules/pointwise/transposed_tile.h"
#include "schedules/split_k/split_k_plan.h"

namespace solder::autosched {

// 16-byte accesses for the root's stores (8 bf16, 4 f32), when the width divides the innermost
// extent (one element per thread otherwise). Not for a root with f16 values (f16_tiles).
int pointwise_vector_width(const FuncNode &O) {
    if (O.updates > 0 || O.dims.empty() || O.elem_bytes > 8) return 1;
    if (!O.is_input && has_f16_values(O.function)) return 1;
    const int64_t extent = O.region[0].extent();
    for (int v = std::max(1, std::min(8, 16 / O.elem_bytes)); v > 1; v /= 2)
        if (extent % v == 0) return v;
    return 1;
}

namespace {

// Steps (RDom points per point, times the points of the root that read each point) a fused
// reduction may cost each thread where several points of the root read one of its points: a
// weighted sum over an input's 3 channels, read by each of the 3 channels of a 4-D output, is
// computed again in each of their threads (9 steps) instead of stored and read back.
constexpr int64_t kSharedPerPointSteps = 64;
// The most points of a Func refined in place (generic_reason.h: refined_in_place) one point of the
// root may read where each thread computes them.
constexpr int64_t kRefinedPointsPerPoint = 16;

// Whether every reduction fused into the kernel is read by the root one point per point: a
// convolution's sum under its bias and ReLU, a filter's max under a copy (one to one: no point read
// by two), or a small reduction read by a few points of the root each (a channel sum read by every
// channel: each thread computes it again, within kSharedPerPointSteps; not a generic reduction).
// Each thread then computes the point's reduction where it reads it (Halide computes a Func with an
// update, left inline, at the innermost loop of its consumer): no block has to hold it, whatever
// the extents. A row's sum read by the whole row is shared too widely, and is not this. Taken where
// the row template cannot hold the reductions in its blocks (sizes known only at run time: they
// would grow with them) or where the points give every SM its threads; a few long reductions
// (nvfuser_2146's 57344 row sums of 1024) are split across a block's threads.
int shared_reduction_dim(const FuncGraph &g, int root, const std::vector<int> &members,
                         const std::vector<bool> &inside);

bool reductions_read_one_to_one(const KernelContext &c) {
    const FuncNode &O = c.root_node();
    const DeviceProfile &d = c.opt.device;
    // (A preference, not a need: a generic member has no other kernel to be fused into.)
    if (c.generic_member < 0 && c.g.fixed_sizes() && O.points() < int64_t(d.sms) * d.blocks_per_sm_to_fill * 256)
        return false;
    // (Quickly: a reduction with fewer points in the whole pipeline than the root has can only be
    // read by several of its points.)
    for (int m : c.members) {
        const FuncNode &M = c.g.nodes[size_t(m)];
        if (M.is_reduction() && M.points() < O.points() && m == c.generic_member) return false;
    }
    // One point of the root at its first corner, its last and its middle: a read at fixed
    // coordinates beside the root's own (Gaussian elimination's pivot row, A(i, k) with k = 0) is
    // one point at the first corner only.
    const auto whole = c.g.regions_for(c.root, O.region, c.inside);
    for (int at = 0; at < 3; at++) {
        Region one = O.region;
        for (auto &iv : one) {
            const int64_t v = at == 0 ? iv.min : at == 1 ? iv.max : iv.min + (iv.max - iv.min) / 2;
            iv.min = iv.max = v;
        }
        const auto at_point = c.g.regions_for(c.root, one, c.inside);
        for (int m : c.members) {
            const FuncNode &M = c.g.nodes[size_t(m)];
            if (!M.is_reduction() && M.generic_per_point) {
                // Refined in place (generic_reason.h: refined_in_place): read by the root alone, a
                // few points per point and each point once (a 2 x 2 downsample of it), so that each
                // thread computes its own points. (Read by a window reduction in the kernel, a
                // random user pipeline's failed on OpenCL with a buffer of no bytes.)
                for (int e : M.out_edges)
                    if (c.g.edges[size_t(e)].consumer != c.root) return false;
                const int64_t at_one = region_points(at_point[size_t(m)]), read = region_points(whole[size_t(m)]);
                if (at_one > kRefinedPointsPerPoint || read * 5 < O.points() * at_one * 4) return false;
                continue;
            }
            if (!M.is_reduction()) continue;
            const int64_t read = region_points(whole[size_t(m)]);
            if (region_points(at_point[size_t(m)]) != 1 || read <= 0 || read > O.points()) return false;
            if (read == O.points()) continue;
            // Read by several points of the root: each thread walks the point's RDom again (one
            // that reduces per point: its RDom's steps are each point's), unless each thread
            // walks the points that share it (shared_reduction_dim) and computes it once.
            if (m == c.generic_member || !reduces_per_point(M.function) || O.points() % read != 0) return false;
            if (M.reduction_points * (O.points() / read) > kSharedPerPointSteps &&
                (!c.opt.gpu || shared_reduction_dim(c.g, c.root, c.members, c.inside) < 0))
                return false;
        }
    }
    return true;
}

// Longest extent, at the estimates, of a dim each thread walks serially (PointwiseParams::serial_dim).
constexpr int64_t kSerialDimPoints = 16;

// The dim of the root, above the innermost, along which every fused reduction that several points
// of the root read does not vary (PointwiseParams::serial_dim): the points that share a point of
// them lie along it alone. Else the innermost dim itself, where it is that dim (rows shorter than
// kSerialDimPoints: a softmax over 10 classes of each sample, each thread then walking a row). -1
// where no fused reduction is so read, or the sharing spans other dims, or that dim is longer
// than kSerialDimPoints at the estimates, or the root has updates.
int shared_reduction_dim(const FuncGraph &g, int root, const std::vector<int> &members,
                         const std::vector<bool> &inside) {
    const FuncNode &O = g.nodes[size_t(root)];
    if (O.updates > 0 || O.region.size() < 2) return -1;
    const auto whole = g.regions_for(root, O.region, inside);
    std::vector<int> shared;
    for (int m : members)
        if (g.nodes[size_t(m)].is_reduction() && region_points(whole[size_t(m)]) < O.points()) shared.push_back(m);
    if (shared.empty()) return -1;
    for (int k = 1; k <= int(O.region.size()); k++) {
        const int d = k % int(O.region.size());  // dims 1, 2, ..., then 0
        if (O.region[size_t(d)].extent() > kSerialDimPoints) continue;
        Region r = O.region;
        r[size_t(d)].max = r[size_t(d)].min;
        const auto one = g.regions_for(root, r, inside);
        bool along = true;
        for (int m : shared)
            along &= region_points(one[size_t(m)]) == region_points(whole[size_t(m)]) &&
                     region_points(whole[size_t(m)]) * O.region[size_t(d)].extent() == O.points();
        if (along) return d;
    }
    return -1;
}

int shared_reduction_dim(const FuncGraph &g, int root, const std::vector<int> &members) {
    std::vector<bool> inside(g.nodes.size(), false);
    for (int m : members) inside[size_t(m)] = true;
    return shared_reduction_dim(g, root, members, inside);
}

// The rows (points of the dims above the innermost) a pointwise kernel's blocks are laid over: all
// of them, less the dim each thread walks (`serial_dim`, -1 none). Where that is the innermost
// dim, the threads lie along dim 1: its points are not rows.
int64_t thread_rows(const FuncNode &O, int serial_dim) {
    if (serial_dim == 0) return blocks_for(O.region, 2);
    return blocks_for(O.region, 1) / (serial_dim > 0 ? O.region[size_t(serial_dim)].extent() : 1);
}

// The extent the threads of a pointwise kernel lie along: dim 0, or dim 1 where each thread walks
// dim 0 (`serial_dim`).
int64_t thread_extent(const FuncNode &O, int serial_dim) {
    return O.region[serial_dim == 0 && O.region.size() >= 2 ? 1 : 0].extent();
}

// Whether a reduction root has two dims or more and every stage of it loops over all of them (its
// estimates' region known in each).
bool reduction_over_all_dims(const FuncNode &O) {
    if (O.updates == 0 || O.dims.size() < 2 || O.region.size() < 2) return false;
    for (int s = 0; s <= O.updates; s++)
        if (stage_pure_vars(O.function, s).size() != O.dims.size()) return false;
    return true;
}

// Whether a reduction root takes 2-D tiles (PointwiseParams): reduction_over_all_dims, and a
// tile's extent in each of the two innermost at the estimates.
bool reduction_tiles(const FuncNode &O) {
    return reduction_over_all_dims(O) && O.region[0].extent() >= kPointwiseTileX &&
           O.region[1].extent() >= kPointwiseTileY;
}

// Steps of a fused generic reduction's RDom each thread unrolls on a GPU (as the generic template
// does for its roots' walks): the loads of several steps issue ahead of the arithmetic that waits
// on the previous step (a select that keeps the first minimum, a decay). Measured on the H100, a
// user's argmin down each of 1024 columns of 4096 took 275 us unrolled, 356 not (blocks of 256).
constexpr int kPerPointUnroll = 8;
// Blocks per SM that a kernel whose threads walk rows of their own (walks_own_rows) takes, its
// blocks below a warp where it has fewer rows than that many blocks of 32. A warp's loads there
// touch a row per thread; in smaller blocks they touch fewer rows each, and more warps interleave
// their walks on each SM. Measured on the H200 (one call, two rounds within 0.5%), a user's Welford
// variance along each of 4096 rows of 4096: 395.9 us in blocks of 8 threads (2 blocks per SM
// wanted), 343.4 in blocks of 2 (8 per SM), 426.1 in blocks of 1 (32 per SM; Anderson2021, blocks
// of 2: 379.8); an arg-max along each of 4096 rows of 4096, then a histogram of the positions:
// 233.5, 185.3 and 187.4 us; an ELL sparse product's 2^18 rows of 32, 256 threads -> 128: 61.5 and
// 61.8 us.
constexpr int64_t kOwnRowBlocksPerSm = 8;
// Whether a reduction root is laid out as an interleaved image (or a list of small vectors: a
// point cloud's x, y, z): reduction_over_all_dims, dim 0 of 2 to kInterleavedPoints points and dim
// 1 of a tile's width at the estimates (PointwiseParams::unroll_dim 0).
bool interleaved_reduction(const FuncNode &O) { return reduction_over_all_dims(O) && O.interleaved(kPointwiseTileX); }
// Whether a root with no updates has that shape (fill's unroll_dim 0, where no other layout takes it).
bool interleaved_pure_root(const FuncNode &O) {
    return O.updates == 0 && O.dims.size() >= 2 && O.interleaved(kPointwiseTileX);
}

// Rows each thread computes of an output whose channels are innermost in memory
// (PointwiseParams::unroll_vector): one pixel's 4 bytes per thread left few bytes in flight.
constexpr int kInterleavedRows = 4;
// Rows each thread computes where its vectors hold 2 points (PointwiseParams::unroll_rows).
constexpr int kNarrowVectorRows = 4;

// Whether a root's dim 1 still makes two blocks of `threads_y` thread rows at the estimates with
// `rows` rows per thread (PointwiseParams::unroll_rows).
bool enough_rows(const FuncNode &O, int threads_y, int rows) {
    return O.region.size() >= 2 && O.region[1].extent() >= 2 * int64_t(threads_y) * rows;
}

// The innermost RVar of each update of `f`, a reduction computed per point in a thread, unrolled.
// (The innermost only: the code grows with the product of the factors. Not an update with an
// RDom::where predicate: each unrolled step keeps its guard and its predicate, and a user's
// triangular sums took 44 us unrolled, 35.5 not.)
// `factors[u]`: update u's factor (kPerPointUnroll where not given; 1: not unrolled).
void unroll_innermost_rvars(ScheduleWriter &w, Halide::Func f, const std::vector<int> &factors = {}) {
    const Halide::Internal::Function fn = f.function();
    std::vector<bool> unrolled(fn.updates().size(), false);
    for (int u = 0; u < int(fn.updates().size()); u++) {
        const int factor = size_t(u) < factors.size() ? factors[size_t(u)] : kPerPointUnroll;
        if (factor > 1 && !fn.update(u).schedule().rvars().empty() && !has_predicate(fn.update(u))) {
            w.unroll({f, u}, Halide::RVar(fn.update(u).schedule().rvars()[0].var), factor,
                     Halide::TailStrategy::GuardWithIf);
            unrolled[size_t(u)] = true;
        }
    }
    // The other updates left as they are, said so (else Halide warns that they were forgotten).
    if (std::find(unrolled.begin(), unrolled.end(), true) != unrolled.end())
        for (int u = 0; u < int(fn.updates().size()); u++)
            if (!unrolled[size_t(u)]) w.unscheduled({f, u});
}

// The fused members of `k` that are generic reductions computed per point (FuncNode::
// generic_per_point), their RVars unrolled in each thread on a GPU.
void unroll_per_point_members(ApplyContext &c, const KernelPlan &k, const std::vector<std::string> &laid_out) {
    if (!is_gpu_target(c.target)) return;
    for (auto &name : k.funcs) {
        if (name == k.root || std::find(laid_out.begin(), laid_out.end(), name) != laid_out.end()) continue;
        Halide::Func f = c.get(name);
        const Halide::Internal::Function fn = f.function();
        if (!reduces_per_point(fn) || generic_reason(fn).empty()) continue;
        unroll_innermost_rvars(c.w, f);
    }
}

// The root's innermost loop outside its vectors (a thread's point, or its row of points): its pure
// definition's first loop that is not vectorized. Empty where there is none.
std::string thread_point_loop(Halide::Func root) {
    for (auto &d : root.function().definition().schedule().dims())
        if (d.for_type != Halide::Internal::ForType::Vectorized && d.var != Halide::Var::outermost().name())
            return d.var;
    return "";
}

// The fused reductions of `k` that another of its reductions reads (a row's maximum, read by the
// sum of exponentials through a pure Func): left unscheduled, Halide computes each at the innermost
// loop of each reader, inside the reader's RVar loop, so the whole maximum again at every step of
// the sum (a cross-entropy's rows: 3.7 s instead of 0.2 ms). Each is computed once at the root's
// innermost loop outside its vectors (the thread's points), which holds every use.
void place_nested_reductions(ApplyContext &c, const KernelPlan &k) {
    std::set<std::string> reductions, nested;
    for (auto &name : k.funcs)
        if (name != k.root && c.get(name).function().has_update_definition()) reductions.insert(name);
    for (auto &reader : reductions)
        for (auto &[callee, fn] : Halide::Internal::find_transitive_calls(c.get(reader).function()))
            if (callee != reader && reductions.count(callee)) nested.insert(callee);
    if (nested.empty()) return;
    Halide::Func root = c.get(k.root);
    const std::string at = thread_point_loop(root);
    if (at.empty()) return;
    for (auto &name : nested) c.w.compute_at(c.get(name), root, Halide::Var(at));
}

// Whether the kernel's root, a reduction at each point, is computed in each thread's registers at
// the points of a copy its readers read (schedule_pointwise_reduction_in_registers): on a GPU, in 2-D
// tiles, not a pipeline output (its readers must be able to read a copy instead), and with no other
// Func with updates computed in the kernel, no walked dim and no side outputs. `fn` gives the
// kernel's Funcs by name.
using FunctionByName = std::function<Halide::Internal::Function(const std::string &)>;
bool root_reduction_in_registers(const KernelPlan &k, const PointwiseParams &p, bool gpu, const FunctionByName &fn) {
    if (!gpu || (p.threads_y <= 1 && p.unroll_dim != 0) || p.serial_dim >= 0 || !k.side.empty() || k.split)
        return false;
    if (std::find(k.outputs.begin(), k.outputs.end(), k.root) != k.outputs.end()) return false;
    const Halide::Internal::Function root = fn(k.root);
    if (root.args().size() < 2 || !reduces_per_point(root)) return false;
    for (auto &name : k.funcs)
        if (name != k.root && fn(name).has_update_definition()) return false;
    return true;
}

// The graph's Funcs by name, for root_reduction_in_registers while planning.
FunctionByName graph_functions(const FuncGraph &g) {
    return [&g](const std::string &n) { return g.nodes[size_t(g.find(n))].function; };
}

// The most points of a refined member's dim one point of the root reads that its loops unroll
// (PointwiseParams::refined_extents).
constexpr int64_t kRefinedUnroll = 4;

// PointwiseParams::refined_members and refined_extents: a point of the root at its first corner,
// and the region of each refined member it reads (reductions_read_one_to_one has checked that
// this is at most kRefinedPointsPerPoint points, and the same at the other corner and the middle),
// where that is more than one point. Measured on the H200, a user's Func refined by two in-place
// updates and read by a 2 x 2 downsample: 37.7 us with the Func left at the root's vector loop
// (Halide's placement for a Func with updates: its 8 x 2 points per vector of 4 on the thread's
// stack, indexed at run time), 15.9 one point per thread with its 2 x 2 points unrolled
// (Anderson2021 20.0, per 32 x 64 tile in shared memory). A member read at one point per point
// keeps the vectors: a user's per-pixel Newton iteration took 20.4 us so, 32.3 one point per thread.
void refined_members_per_point(const KernelPlanContext &c, PointwiseParams &p) {
    const FuncNode &O = c.g.nodes[size_t(c.root)];
    std::vector<bool> inside(c.g.nodes.size(), false);
    for (int m : c.kc.members) inside[size_t(m)] = true;
    Region one = O.region;
    for (auto &iv : one) iv.max = iv.min;
    const auto at_point = c.g.regions_for(c.root, one, inside);
    for (int m : c.kc.members) {
        const FuncNode &M = c.g.nodes[size_t(m)];
        if (m == c.root || M.is_reduction() || !M.generic_per_point) continue;
        if (region_points(at_point[size_t(m)]) <= 1) continue;
        std::vector<int> extents;
        std::string shape;
        for (const auto &iv : at_point[size_t(m)]) {
            extents.push_back(iv.extent() >= 2 && iv.extent() <= kRefinedUnroll ? int(iv.extent()) : 1);
            shape += (shape.empty() ? "" : " x ") + std::to_string(iv.extent());
        }
        c.plan.explanations.push_back({M.name, O.name,
                                       "computed at each thread's point of " + O.name + ", one point per thread, its " +
                                           shape + " points there unrolled in every stage (held in registers)"});
        p.refined_members.push_back(M.name);
        p.refined_extents.push_back(extents);
    }
}

// Each refined member (PointwiseParams::refined_members) computed at the root's innermost loop
// outside its vectors (the thread's point), every stage's loops over its few points there unrolled.
void place_refined_members(ApplyContext &c, const KernelPlan &k, const PointwiseParams &p) {
    if (p.refined_members.empty()) return;
    Halide::Func root = c.get(k.root);
    const std::string at = thread_point_loop(root);
    if (at.empty()) return;
    for (size_t i = 0; i < p.refined_members.size(); i++) {
        Halide::Func f = c.get(p.refined_members[i]);
        c.w.compute_at(f, root, Halide::Var(at));
        const auto &args = f.function().args();
        for (int u = -1; u < int(f.function().updates().size()); u++)
            for (size_t d = 0; d < args.size() && d < p.refined_extents[i].size(); d++)
                if (p.refined_extents[i][d] > 1)
                    c.w.unroll({f, u}, Halide::Var(args[d]), p.refined_extents[i][d],
                               Halide::TailStrategy::GuardWithIf);
    }
}

class PointwiseTemplate : public KernelTemplate {
public:
    TemplateKind kind() const override { return TemplateKind::Pointwise; }

    std::string why_not(const KernelContext &c) const override {
        if (c.generic_member >= 0 && c.root_node().updates > 0) return "its root has updates of its own";
        if (c.generic_member >= 0 && !reductions_read_one_to_one(c))
            return "its root does not read one point of it per point";
        return c.reduction_member && !c.root_node().is_reduction() && !reductions_read_one_to_one(c)
                   ? "a reduction is fused into a root that is not one (its consumer's blocks must hold it)"
                   : "";
    }

    std::optional<KernelChoice> choose(const KernelContext &c) const override {
        const FuncNode &O = c.root_node();
        if (!why_not(c).empty()) return std::nullopt;
        const int rank = int(O.dims.size());
        KernelChoice kc;
        kc.members = c.members;
        kc.kind = TemplateKind::Pointwise;
        const auto whole = c.g.regions_for(c.root, O.region, c.inside);
        // Reads are costed per row of the innermost dim, which its blocks tile exactly (with the
        // whole of a dim its threads walk).
        const int serial = c.opt.gpu ? shared_reduction_dim(c.g, c.root, c.members, c.inside) : -1;
        // A small dim whose points each thread computes together (fill's unroll_dim), with the
        // whole of it: what its points read in common is read once (a pixel's luminance, from its
        // three channels, read by each output channel), where the row at its first point would
        // span every point between the ones it reads. (Where fill may unroll it: a vector layout
        // or f16 tiles, no Func folded per point in the threads, not the 2-D tiles of scattered
        // gathers.)
        const bool may_unroll = c.opt.gpu && serial < 0 && !c.reduction_member &&
                                !gathers_scattered(c.g, c.root, c.members) &&
                                (pointwise_vector_width(O) > 1 || f16_tiles(c.g, c.root, c.members));
        const int together = may_unroll ? unrolled_points_dim(c.g, c.root, c.members) : -1;
        Region blk = O.region;
        for (int d = 1; d < rank; d++)
            if (d != serial && d != together) blk[d].max = blk[d].min;
        // (Walking dim 0, each thread takes one point of the others: one row of the cost.)
        const int64_t rows = serial == 0    ? blocks_for(O.region, 1)
                             : together > 0 ? thread_rows(O, -1) / O.region[size_t(together)].extent()
                                            : thread_rows(O, serial);
        kc.blocks = serial == 0 ? blocks_of(rows, 256) : ((O.region[0].extent() + 255) / 256) * rows;
        // Fused reductions in an interleaved root's threads (fill's unroll_dim 0): a thread per
        // pixel, each walking its points of dim 0, not a block per row of dim 0. Counted as a
        // block of those few points per row, a user's maximum of each channel along each row of an
        // interleaved 8-bit RGB 4K image (2160 threads, each walking 3840 pixels) was estimated at
        // 10.8 us, and ran 1538 us on the H100.
        // (A reduction root of that shape, interleaved_reduction, likewise.)
        if (c.opt.gpu && serial < 0 && (interleaved_pure_root(O) ? c.reduction_member : interleaved_reduction(O)))
            kc.blocks = blocks_of(rows, 256);
        c.cost.kernel_reads(c.g, c.root, c.inside, whole, c.g.regions_for(c.root, blk, c.inside), rows, kc, true);
        // Contraction members (fill lays the root in their tiles): a block per tile, and the cost
        // stretched where those are too few to occupy the GPU (fewer than its SMs) and the member,
        // stored, would be summed in slices of its tiles (split_contraction_dims). Counted as rows
        // of 256 points, a linear layer's weight gradient (512 x 512 results of 8192 steps) was
        // 1024 blocks, where its tiles were 64: it ran 1.29 ms on the H200, and storing the
        // contraction (split-K in its tiles) was not considered cheaper.
        if (c.opt.gpu && c.opt.contraction_tiles && c.opt.register_tiles && rank >= 2 && serial < 0)
            for (int dy = 1; dy < rank; dy++) {
                std::vector<std::pair<int, int>> dims;
                const auto names = contraction_members(
                    c.g, c.root, c.members, [](int) { return true; }, dy, dims);
                if (names.empty()) continue;
                // (Only for contractions that, stored, split-K would sum in their tiles: a causal
                // attention's weighted values over 512 steps, stored, took a block reduction and ran
                // 3x slower than in this kernel's few tiles.)
                bool splits = false;
                for (auto &n : names) splits |= split_contraction_dims(c.g, c.opt, c.g.find(n)).second >= 0;
                if (!splits) break;
                const int64_t tiles = contraction_tiles(O, 0, dy) * points_beside(O, 0, dy);
                // (Only where they leave SMs idle: elsewhere the estimate stays as it was measured
                // against, rows of 256 points.)
                if (tiles < c.opt.device.sms) kc.blocks = tiles;
                break;
            }
        consider_split_k(c.g, c.opt, c.root, kc);
        return kc;
    }

    void fill(const KernelPlanContext &c, KernelPlan &k) const override {
        PointwiseParams p;
        // A fused reduction is computed per point in each thread: one point per thread, not a vector.
        bool reduction_member = false;
        for (int m : c.kc.members) reduction_member |= c.g.nodes[size_t(m)].is_reduction();
        const FuncNode &O = c.g.nodes[size_t(c.root)];
        if (c.opt.gpu) refined_members_per_point(c, p);
        p.vector_width = c.opt.gpu && !reduction_member && p.refined_members.empty() ? pointwise_vector_width(O) : 1;
        // A dim each thread walks, computing the reductions shared along it once (as choose costed
        // it): decided before the 2-D tiles below, which such a kernel does not take.
        if (c.opt.gpu && reduction_member) p.serial_dim = shared_reduction_dim(c.g, c.root, c.kc.members);
        for (int m : c.kc.members)
            if (p.serial_dim >= 0 && c.g.nodes[size_t(m)].is_reduction())
                c.plan.explanations.push_back({c.g.nodes[size_t(m)].name, O.name,
                                               "computed once in each thread of " + O.name + "'s kernel for the " +
                                                   std::to_string(O.region[size_t(p.serial_dim)].extent()) +
                                                   " points along its dim " + std::to_string(p.serial_dim) +
                                                   " that the thread walks (it does not vary along them)"});
        // Costly math that does not vary along a dim: each thread walks it, one point at a time.
        // (Not where a small dim's points are unrolled in each thread, in vectors, below: that
        // computes the math once for them as well.)
        if (c.opt.gpu && !reduction_member && k.side.empty() && !k.split &&
            unrolled_points_dim(c.g, c.root, c.kc.members) < 0) {
            p.serial_dim = invariant_math_dim(c.g, c.root, c.kc.members,
                                              int64_t(c.opt.device.sms) * c.opt.device.max_threads_per_sm);
            if (p.serial_dim >= 0) {
                p.vector_width = 1;
                p.serial_unroll = kInvariantMathUnroll;
                while (p.threads_x > 32 && p.threads_x / 2 >= O.region[0].extent()) p.threads_x /= 2;
                c.plan.explanations.push_back(
                    {O.name, "",
                     "each thread walks the " + std::to_string(O.region[size_t(p.serial_dim)].extent()) +
                         " points of its dim " + std::to_string(p.serial_dim) +
                         ": its costly math (sines, exponentials, powers) does not vary along them, and is "
                         "computed once for them"});
            }
        }
        // Rows per block where a row is shorter than the block (at the estimates; any size runs).
        if (p.vector_width > 1 && O.dims.size() >= 2) {
            const int64_t accesses = blocks_of(O.region[0].extent(), p.vector_width);
            while (p.threads_x > 1 && p.threads_x / 2 >= accesses) p.threads_x /= 2;
            p.threads_y = 256 / p.threads_x;
            while (p.threads_y > 1 && p.threads_y / 2 >= O.region[1].extent()) p.threads_y /= 2;
        }
        // A reduction root (one thread per result, its RDom serial in the thread) in 2-D tiles where
        // every stage loops over all its dims and they span a tile at the estimates: the windows
        // that neighbouring results read (a patch sum) then overlap within a block, in rows as
        // well as along them.
        if (c.opt.gpu && reduction_tiles(O)) p.threads_x = kPointwiseTileX, p.threads_y = kPointwiseTileY;
        if (c.opt.gpu && p.serial_dim < 0 && O.updates == 0 && O.dims.size() >= 2 &&
            O.region[0].extent() >= kPointwiseTileX && O.region[1].extent() >= kPointwiseTileY &&
            gathers_scattered(c.g, c.root, c.kc.members)) {
            p.vector_width = 1;
            p.threads_x = kPointwiseTileX, p.threads_y = kPointwiseTileY;
        }
        bool f16 = false;
        // f16 values (f16_tiles): one point per thread in 32 x 8 tiles. Measured on the H100, a
        // user's vertical flip of a 3840 x 2160 f16 image took 38.9 us in x8 vectors, 24.5 so (26.1
        // in 16 x 16 tiles; Anderson2021's 16 x 16: 26.2).
        if (c.opt.gpu && p.serial_dim < 0 && O.updates == 0 && O.dims.size() >= 2 &&
            O.region[0].extent() >= kPointwiseTileX && O.region[1].extent() >= kPointwiseTileY &&
            f16_tiles(c.g, c.root, c.kc.members)) {
            f16 = true;
            p.vector_width = 1;
            p.threads_x = kPointwiseTileX, p.threads_y = kPointwiseTileY;
        }
        // One point per thread along rows shorter than the block: a snug 2-D tile instead.
        if (c.opt.gpu && p.vector_width == 1 && p.threads_y == 1 && p.serial_dim < 0 && O.updates == 0 &&
            O.dims.size() >= 2 && O.region[0].extent() < 256) {
            auto [tx, ty] = snug_tile(O.region[0].extent(), O.region[1].extent());
            if (ty > 1) p.threads_x = tx, p.threads_y = ty;
        }
        // Fused reductions walk their RDoms serially in each thread: as many threads per block as
        // fill the SMs at the estimates (threads_filling_sms, as the generic template's). Measured on
        // the H100, a user's argmin down each of 1024 columns of 4096 took 180 us in 32 blocks of
        // 32, 275 in 4 blocks of 256 (unrolled both), 191 as a generic root.
        if (c.opt.gpu && reduction_member && p.vector_width == 1 && p.threads_y == 1 && !O.region.empty()) {
            p.threads_x =
                threads_filling_sms(thread_extent(O, p.serial_dim), thread_rows(O, p.serial_dim), c.opt.device);
            // Walks along rows of their own: below a warp per block while the blocks would be fewer
            // than kOwnRowBlocksPerSm per SM. Measured on the H100, a user's arg-max along each of
            // 512 rows of 32000 f32 took 2528 us in 16 blocks of 32 threads (Anderson2021, 512
            // blocks of 1: 1471).
            bool own_rows = true;
            for (int m : c.kc.members)
                if (c.g.nodes[size_t(m)].is_reduction()) own_rows = own_rows && walks_own_rows(c.g.nodes[size_t(m)]);
            const int64_t rows = thread_rows(O, p.serial_dim);
            while (own_rows && p.threads_x > 1 &&
                   blocks_of(thread_extent(O, p.serial_dim), p.threads_x) * rows <
                       kOwnRowBlocksPerSm * int64_t(c.opt.device.sms))
                p.threads_x /= 2;
        }
        // A gather: each thread takes kGatherRows rows, unrolled, so that their
        // index loads, and then their gathered loads, are in flight together. Measured on the H100,
        // embedding_gather's kernel was bound by the latency of its dependent loads (35 cycles of
        // wait per issued instruction, DRAM at 50%) with one row per thread.
        if (p.vector_width > 1 && O.dims.size() >= 2 && enough_rows(O, p.threads_y, kGatherRows) &&
            gathers(c.g, c.root, c.kc.members))
            p.unroll_rows = kGatherRows;
        // A root that reduces at each point (computed in registers where root_reduction_in_registers
        // says so): each update's innermost RVar unrolled by its extent at the estimates, up to
        // kPerPointUnroll. Measured on the H100, a depthwise convolution's 3-tap rows, unrolled by
        // 8 under guards, took 101.9 us against 95.2 rolled.
        if (c.opt.gpu && reduces_per_point(O.function))
            for (const std::vector<int64_t> &e : O.rvar_extents)
                p.root_unroll.push_back(e.empty() ? 1 : int(std::clamp<int64_t>(e[0], 1, kPerPointUnroll)));
        // A reduction root laid out as an interleaved image (its dim 0 of 2 to 4 points at the
        // estimates, every stage over all its dims): each thread walks its pixel's points of dim 0
        // in every stage, the threads in tiles over dims 1 and 2. One point per thread along dim 0
        // left 253 of each block's 256 threads idle: a user's 9-tap box filter of an interleaved
        // 8-bit RGB 4K image took 10.1 ms so on the H100 (Anderson2021: 0.89).
        if (c.opt.gpu && interleaved_reduction(O) && p.serial_dim < 0 && k.side.empty() && !k.split) {
            p.vector_width = 1;
            p.unroll_dim = 0, p.unroll_extent = 0;
            p.threads_x = O.dims.size() >= 3 ? kPointwiseTileX : 256;
            p.threads_y = O.dims.size() >= 3 ? kPointwiseTileY : 1;
        }
        if (root_reduction_in_registers(k, p, c.opt.gpu, graph_functions(c.g)))
            k.launches = 1 + (c.kc.launches() - 1);  // the copy's (its stages are the copy's loops)
        // The points of a small dim (an image's channels) together in each thread, where the
        // kernel reads some Func at constant points of a dim: measured on the H100, a user's
        // planar RGB -> HSV -> RGB round trip (1920 x 1080, each output channel a part of the
        // pixel's conversion) took 50.3 us so, 98.7 us one channel per thread (Anderson2021: 86.9).
        // Or read across the channels: measured on the H100, an alpha blend of two 3840 x 2160 f16
        // RGB images took 97.0 us a channel per thread in 32 x 8 tiles, 73.9 so (Anderson2021:
        // 83.8); a per-pixel gain of an f32 RGB image 90.8 -> 83.7 in x4 vectors (Anderson2021 83.3).
        if (c.opt.gpu && (p.vector_width > 1 || f16) && p.unroll_rows == 1 && p.serial_dim < 0 && k.side.empty()) {
            p.unroll_dim = unrolled_points_dim(c.g, c.root, c.kc.members);
            if (p.unroll_dim >= 0) p.unroll_extent = int(O.region[size_t(p.unroll_dim)].extent());
        }
        // A producer read transposed (a layout change): square tiles, its tile staged in shared
        // memory. Measured on the H100: a 4096 x 4096 f32 transpose took 149.2 us in x4 vectors
        // along the output's rows, 60.9 us so (torch.compile 60.0); the channels_last app (NCHW ->
        // NHWC of 32 x 128 x 56 x 56 f32 with a per-channel scale and shift), 62.5 -> 58.4 us. Read
        // in place as well (a matrix's symmetric part), the tiles without the staging.
        if (c.opt.gpu && c.opt.transposed_tiles && !reduction_member && p.serial_dim < 0 && p.unroll_rows == 1 &&
            k.side.empty())
            if (auto t = transposed_read(c.g, c.root, c.kc.members,
                                         [&](int m) { return c.groups[size_t(m)].size() == 1; })) {
                p.transposed_source = c.g.nodes[size_t(t->producer)].name;
                p.transposed_readers = t->readers;
                p.transposed_root_dim = t->root_dim;
                p.transposed_source_dim = t->source_dim;
                p.transposed_staged = t->staged;
                p.vector_width = 1;
                p.threads_x = transpose_tile(t->staged), p.threads_y = transpose_threads_y(t->staged);
                p.unroll_dim = -1, p.unroll_extent = 0;
            }
        // Convolution-like members (a small window of constant extent reduced at each point) for
        // several rows per thread. Measured on the H100, a user's 5 x 5 convolution of a 3840 x 2160
        // f32 image with its weights in a buffer took 114.0 us one point per thread, 52.5 us with
        // 4 rows per thread (8 rows: 57.6; Anderson2021 119.0).
        if (c.opt.gpu && c.opt.register_tiles && p.serial_dim < 0 && p.unroll_rows == 1 &&
            p.transposed_source.empty() && k.side.empty() && !k.split && c.kc.split_func < 0) {
            const int threads_x = p.threads_x, threads_y = p.threads_y;
            p.register_members = register_tile_members(c.g, c.root, c.kc.members,
                                                       [&](int m) { return c.groups[size_t(m)].size() == 1; });
            p.register_root = p.register_members.empty() && register_tile_root(c.g, c.root);
            if (!p.register_members.empty() || p.register_root) {
                p.register_rows = kRegisterTileRows;
                p.register_dim_y = p.register_root ? register_rows_dim(c.g, c.root) : 1;
                if (p.register_dim_y >= 2) p.register_rows = rows_apart(O.region[size_t(p.register_dim_y)].extent());
                p.threads_x = kPointwiseTileX, p.threads_y = kPointwiseTileY;
                if (p.register_root) {
                    p.register_shared_dim = register_shared_dim(c.g, c.root, p.register_dim_y);
                    if (p.register_shared_dim >= 0)
                        p.register_shared_points = int(O.region[size_t(p.register_shared_dim)].extent());
                }
            } else if (c.opt.contraction_tiles) {
                // Contractions (a matrix product): kContractionTile x kContractionTile points per
                // thread, each operand's load shared by a row or a column of them.
                // (Over dims 0 and 1, or else 0 and the first other dim that is one: a 1 x 1
                // convolution's channels.)
                for (int dy = 1; dy < int(O.dims.size()); dy++) {
                    p.register_members = contraction_members(
                        c.g, c.root, c.kc.members, [&](int m) { return c.groups[size_t(m)].size() == 1; }, dy,
                        p.register_dims);
                    p.register_root = p.register_members.empty() && contraction_root(c.g, c.root, dy);
                    p.register_dim_y = dy;
                    if (!p.register_members.empty() || p.register_root) break;
                }
                p.register_rows = p.register_cols = kContractionTile;
                p.threads_x = p.threads_y = kContractionThreads;
                // Inputs read along the steps, loaded a vector of steps at a time. Measured on the
                // H200, a user's linear layer (`w(k, o) * x(k, n)`, 512 features into 2048 for 4096
                // samples) took 2418 us loaded one step at a time, 1297 so (Anderson2021 2037).
                p.register_vectors.clear(), p.vector_inputs.clear();
                for (size_t i = 0; i < p.register_members.size(); i++) {
                    auto inputs = vector_operand_inputs(c.g, c.root, c.kc.members, p.register_members[i],
                                                        p.register_dims[i].first, p.register_dims[i].second);
                    p.register_vectors.push_back(!inputs.empty());
                    for (auto &n : inputs)
                        if (std::find(p.vector_inputs.begin(), p.vector_inputs.end(), n) == p.vector_inputs.end())
                            p.vector_inputs.push_back(n);
                }
                p.vector_steps = p.vector_inputs.empty() ? 0 : kContractionStepUnroll;
            }
            if (!p.register_members.empty() || p.register_root) {
                p.root_unroll.clear();
                p.vector_width = 1;
                p.unroll_dim = -1, p.unroll_extent = 0;
            } else {
                p.register_rows = 0, p.register_cols = 1;
                p.register_vectors.clear(), p.vector_inputs.clear(), p.vector_steps = 0;
                p.threads_x = threads_x, p.threads_y = threads_y;
            }
        }
        // An interleaved root (its dim 0 of 2 to 4 points at the estimates, an RGB image's
        // channels innermost in memory): each thread computes its pixel's points of dim 0, the
        // threads over dims 1 and 2. Measured on the H200, a user's unsharp mask of an interleaved
        // 8-bit RGB 4K image took 920 us in 8 x 32 tiles over the channels and the columns (3 of 8
        // threads along the channels busy); Anderson2021 595.
        if (c.opt.gpu && p.vector_width == 1 && !f16 && p.unroll_dim < 0 && p.unroll_rows == 1 && p.serial_dim < 0 &&
            k.side.empty() && !k.split && p.transposed_source.empty() && p.register_members.empty() &&
            !p.register_root && p.root_unroll.empty() && interleaved_pure_root(O)) {
            // (Unrolled only in an output's branch: a Func other kernels read has no output buffer
            // to specialize on, and its region's dim 0 may be wider than what it computes.)
            p.unroll_dim = 0;
            p.unroll_extent = O.is_output ? int(O.region[0].extent()) : 0;
            p.threads_x = O.dims.size() >= 3 ? kPointwiseTileX : 256;
            p.threads_y = O.dims.size() >= 3 ? kPointwiseTileY : 1;
        }
        // An output whose buffer declares a dim of 2 to 4 points innermost in memory (interleaved
        // RGBA, `set_stride(1)` on the channels): each thread computes its pixel's points of that
        // dim as one vector, for kInterleavedRows rows, the threads in tiles over dims 0 and 1.
        // Measured on the H200, a user's premultiplied alpha of an interleaved 8-bit RGBA 4K image
        // took 321.8 us in x8 vectors along the rows (each loading and storing a byte every 4),
        // 48.2 us with a pixel's vector per thread, 30.7 with 4 rows of them (Anderson2021: 43.5).
        if (c.opt.gpu && !f16 && O.updates == 0 && k.side.empty() && !k.split && p.serial_dim < 0 &&
            p.transposed_source.empty() && p.register_members.empty() && !p.register_root && p.root_unroll.empty() &&
            O.dims.size() >= 3)
            if (const int d = memory_inner_dim(O); d >= 2) {
                p.vector_width = 1;
                p.unroll_rows = enough_rows(O, kPointwiseTileY, kInterleavedRows) ? kInterleavedRows : 1;
                p.unroll_dim = d, p.unroll_extent = int(O.region[size_t(d)].extent()), p.unroll_vector = true;
                p.threads_x = kPointwiseTileX, p.threads_y = kPointwiseTileY;
                c.plan.explanations.push_back({O.name, "",
                                               "its buffer declares dim " + std::to_string(d) +
                                                   " innermost in memory: each thread computes that dim's points "
                                                   "as one vector, for " +
                                                   std::to_string(p.unroll_rows) +
                                                   " rows, the threads over dims 0 and 1"});
            }
        // Whether a plain vector layout (one row per thread so far, no other layout chosen) may take
        // `rows` rows per thread.
        auto rows_fit = [&](int rows) {
            return c.opt.gpu && p.unroll_rows == 1 && p.unroll_dim < 0 && p.serial_dim < 0 && k.side.empty() &&
                   !k.split && !reduction_member && p.transposed_source.empty() && p.register_members.empty() &&
                   !p.register_root && p.root_unroll.empty() && O.dims.size() >= 2 && enough_rows(O, p.threads_y, rows);
        };
        // Work each thread does before its store that its vector does not share (schedules/pointwise/
        // pointwise_reads.h: invariant_chain): rows per thread put more bytes in flight beside it.
        if (p.vector_width > 1 && rows_fit(kInvariantChainRows) && invariant_chain(c.g, c.root, c.kc.members)) {
            p.unroll_rows = kInvariantChainRows;
            c.plan.explanations.push_back(
                {O.name, "",
                 "each thread computes " + std::to_string(kInvariantChainRows) +
                     " rows: the math before each thread's store that its vector does not share (divisions, "
                     "square roots, loads of what they need) leaves too few bytes in flight with one"});
        }
        // Vectors of 2 points (a 64-bit output's 16-byte stores, or an extent that only 2 divides)
        // leave each thread few bytes in flight: kNarrowVectorRows rows per thread. Measured on the
        // H200 (two rounds in one call), user pipelines with such kernels: an int64 quantization
        // beside a double gamma 127.9 -> 117.9 us (Anderson2021 111.6), a bitonic sort 990.7 ->
        // 930.7, heat diffusion 237.5 -> 225.3, a wavelet level 83.7 -> 79.7, a local standard
        // deviation 80.8 -> 77.3, an RGB convolution 105.4 -> 100.6; a tuple mix 19.1 -> 19.5 and an
        // unsharp mask 279.8 -> 282.3; three others within 1%.
        if (p.vector_width == 2 && rows_fit(kNarrowVectorRows)) p.unroll_rows = kNarrowVectorRows;
        // A split root alone, its dim 0 narrower than a warp: its dims fused along the threads.
        if (c.opt.gpu && c.kc.split_func == c.root && k.side.empty() && c.kc.members.empty() && O.dims.size() >= 2 &&
            O.region[0].extent() < 32 && p.serial_dim < 0 && p.transposed_source.empty() &&
            p.register_members.empty() && !p.register_root) {
            p.flat = true;
            p.vector_width = 1, p.threads_x = 256, p.threads_y = 1;
            p.unroll_rows = 1, p.unroll_dim = -1, p.unroll_extent = 0;
        }
        k.params = p;
    }

    void apply(ApplyContext &c, const KernelPlan &k) const override {
        const PointwiseParams *p = k.get<PointwiseParams>();
        if (!k.side.empty()) {
            // Side outputs: each laid out as the root, under its loop names, and fused with it at
            // the thread loop, its readers reading a copy (as siblings, but for the copy).
            std::vector<Halide::Func> roots{c.get(k.root)};
            for (auto &so : k.side) roots.push_back(c.get(so.func));
            clone_for_readers(c.w, {roots.begin() + 1, roots.end()}, roots[0]);
            schedule_pointwise_siblings(c.w, roots, p->vector_width, c.target, p->threads_x, p->threads_y,
                                        p->unroll_rows);
            return;
        }
        if (p->flat && is_gpu_target(c.target)) {
            schedule_flat_kernel(c.w, c.get(k.root), p->threads_x);
        } else if (!p->transposed_source.empty() && is_gpu_target(c.target)) {
            std::vector<Halide::Func> readers;
            for (auto &name : p->transposed_readers) readers.push_back(c.get(name));
            schedule_transposed_tile(c.w, c.get(k.root), c.get(p->transposed_source), readers, p->transposed_root_dim,
                                     p->transposed_source_dim, p->transposed_staged);
        } else if (p->serial_dim >= 0 && is_gpu_target(c.target)) {
            // Each thread walks the serial dim, and computes the fused reductions once before it.
            const Halide::VarOrRVar tx =
                schedule_pointwise_serial_dim(c.w, c.get(k.root), p->threads_x, p->serial_dim, p->serial_unroll);
            for (auto &name : k.funcs)
                if (name != k.root && c.get(name).function().has_update_definition())
                    c.w.compute_at(c.get(name), c.get(k.root), tx);
        } else if (!p->register_members.empty() && is_gpu_target(c.target)) {
            std::vector<Halide::Func> members;
            for (auto &name : p->register_members) members.push_back(c.get(name));
            if (p->register_cols > 1) {
                std::vector<bool> guarded;
                for (auto &name : p->register_members) {
                    bool under = false;
                    for (auto &f : k.funcs) under |= read_under_a_condition(c.get(f).function(), name);
                    guarded.push_back(under);
                }
                schedule_contraction_tile(c.w, c.get(k.root), p->register_dim_y, members, p->register_dims, guarded,
                                          p->register_vectors);
            } else {
                schedule_register_tile(c.w, c.get(k.root), members, p->register_rows);
            }
        } else if (p->register_root && is_gpu_target(c.target)) {
            if (p->register_cols > 1)
                schedule_contraction_tile_root(c.w, c.get(k.root), p->register_dim_y);
            else
                schedule_register_tile_root(c.w, c.get(k.root), p->register_rows, p->register_dim_y,
                                            p->register_shared_dim, p->register_shared_points);
        } else if (root_reduction_in_registers(k, *p, is_gpu_target(c.target),
                                               [&](const std::string &n) { return c.get(n).function(); })) {
            schedule_pointwise_reduction_in_registers(c.w, c.get(k.root), p->threads_x, p->threads_y,
                                                      p->unroll_dim == 0);
            unroll_innermost_rvars(c.w, c.get(k.root), p->root_unroll);
        } else {
            schedule_pointwise_kernel(c.w, c.get(k.root), p->vector_width, c.target, p->threads_x, p->threads_y, "",
                                      p->unroll_rows, p->unroll_dim, p->unroll_extent, p->unroll_vector);
            place_nested_reductions(c, k);
            place_refined_members(c, k, *p);
        }
        unroll_per_point_members(c, k, p->register_members);
    }

    // (schedule_pointwise_kernel: 256 threads of `vector_width` neighbours each, or the Func's own kernel.)
    std::vector<LaunchShape> launch_shapes(const ShapeContext &c, const KernelPlan &k) const override {
        const FuncNode &O = c.root_node();
        const PointwiseParams *p = k.get<PointwiseParams>();
        const int width = p->vector_width;
        if (p->flat) {
            // (As schedule_flat_kernel: every dim but the last along the threads, for each stage.)
            std::vector<LaunchShape> out;
            for (int stage = 0; stage <= O.updates; stage++)
                out.push_back(flat_stage(stage_name(O, stage), stage_extents(O, stage), 1, p->threads_x, c.grid));
            return out;
        }
        if (p->serial_dim >= 0 && k.side.empty()) {
            // (As schedule_pointwise_serial_dim: the threads' blocks one tile dim, the rest
            // mapped by the grid map.)
            std::vector<int64_t> e = stage_extents(O, 0);
            e.erase(e.begin() + p->serial_dim);
            LaunchShape s;
            s.stage = O.name;
            e[0] = blocks_of(e[0], p->threads_x);
            set_grid(s, e, 1, c.grid);
            s.threads[0] = p->threads_x;
            return {s};
        }
        if (!p->transposed_source.empty() && k.side.empty()) {
            std::vector<int64_t> e = stage_extents(O, 0), blocks{blocks_of(e[0], transpose_tile(p->transposed_staged)),
                                                                 blocks_of(e[size_t(p->transposed_root_dim)],
                                                                           transpose_tile(p->transposed_staged))};
            for (int d = 1; d < int(e.size()); d++)
                if (d != p->transposed_root_dim) blocks.push_back(e[size_t(d)]);
            LaunchShape s;
            s.stage = O.name;
            set_grid(s, blocks, 2, c.grid);
            s.threads[0] = p->threads_x, s.threads[1] = p->threads_y;
            const int source = c.g.find(p->transposed_source);
            if (p->transposed_staged)
                s.shared_bytes = int64_t(kTransposeTile + 1) * kTransposeTile * c.g.nodes[size_t(source)].elem_bytes;
            return {s};
        }
        if ((!p->register_members.empty() || p->register_root) && k.side.empty()) {
            std::vector<LaunchShape> out;
            // (The tile's dims first, then the others in order: the blocks' order.)
            auto tile_dims_first = [&](int stage) {
                std::vector<int64_t> e = stage_extents(O, stage);
                const int dy = p->register_cols > 1 ? p->register_dim_y : 1;
                std::rotate(e.begin() + 1, e.begin() + dy, e.begin() + dy + 1);
                return e;
            };
            // (A window root's rows along a dim of their own, the threads over dims 0 and 1.)
            const bool rows_apart = p->register_cols == 1 && p->register_dim_y >= 2;
            const size_t rows_dim = rows_apart ? size_t(p->register_dim_y) : 1;
            for (int stage = 0; stage <= (p->register_root ? O.updates : 0); stage++) {
                std::vector<int64_t> e = rows_apart ? stage_extents(O, stage) : tile_dims_first(stage);
                e[0] = blocks_of(e[0], p->register_cols);
                e[rows_dim] = blocks_of(e[rows_dim], p->register_rows);
                out.push_back(tiled_stage(stage_name(O, stage), e, p->threads_x, p->threads_y, 0, c.grid));
            }
            // Inputs loaded as vectors: the layout above is the branch for an output at least a
            // tile wide; a narrower one takes one point per thread, a kernel of its own.
            if (!p->vector_inputs.empty() && !p->register_root)
                out.push_back(tiled_stage(O.name + " (narrower than a tile)", tile_dims_first(0), p->threads_x,
                                          p->threads_y, 0, c.grid));
            return out;
        }
        if (root_reduction_in_registers(k, *p, c.opt.gpu, graph_functions(c.g))) {
            std::vector<int64_t> e = stage_extents(O, 0);
            if (p->unroll_dim == 0 && e.size() >= 2) e.erase(e.begin());  // (tiles over dims 1 and 2)
            return {tiled_stage(O.name + " (copy)", e, p->threads_x, p->threads_y, p->threads_x, c.grid)};
        }
        if (p->unroll_dim == 0 && O.updates > 0 && k.side.empty()) {
            // An interleaved reduction root: every stage in tiles over dims 1 and 2.
            std::vector<LaunchShape> out;
            for (int stage = 0; stage <= O.updates; stage++) {
                std::vector<int64_t> e = stage_extents(O, stage);
                e.erase(e.begin());
                out.push_back(tiled_stage(stage_name(O, stage), e, p->threads_x, p->threads_y, p->threads_x, c.grid));
            }
            return out;
        }
        if (p->unroll_dim == 0 && O.updates == 0 && k.side.empty()) {
            // An interleaved root: tiles over dims 1 and 2 (the branch and the general layout alike).
            std::vector<int64_t> e = stage_extents(O, 0);
            e.erase(e.begin());
            return {tiled_stage(O.name, e, p->threads_x, p->threads_y, p->threads_x, c.grid)};
        }
        const bool unrolled = O.updates == 0 && p->unroll_dim >= 0;
        if ((O.updates > 0 || width <= 1) && p->threads_y > 1 && !unrolled) {
            std::vector<LaunchShape> out;
            for (int stage = 0; stage <= O.updates; stage++)
                out.push_back(
                    tiled_stage(stage_name(O, stage), stage_extents(O, stage), p->threads_x, p->threads_y, 0, c.grid));
            return out;
        }
        if ((width <= 1 && !unrolled) || O.updates > 0 || O.dims.empty())
            return own_kernel_shapes(O, c.grid, p->threads_x);
        // The vector layout; with unroll_dim, its branch of that dim's points in each thread (the
        // only layout at sizes fixed when planned, beside the general one otherwise).
        auto layout = [&](bool unroll) {
            LaunchShape s;
            s.stage = O.name;
            std::vector<int64_t> e = stage_extents(O, 0);
            const bool rows = p->threads_y > 1 && e.size() >= 2;
            e[0] = blocks_of(blocks_of(e[0], std::max(width, 1)), rows ? p->threads_x : 256);
            if (p->unroll_rows > 1 && e.size() >= 2) e[1] = blocks_of(e[1], p->unroll_rows);
            if (rows) e[1] = blocks_of(e[1], p->threads_y);
            if (unroll) e[size_t(p->unroll_dim)] = blocks_of(e[size_t(p->unroll_dim)], p->unroll_extent);
            set_grid(s, e, 1, c.grid);
            s.threads[0] = rows ? p->threads_x : 256;
            s.threads[1] = rows ? p->threads_y : 1;
            return s;
        };
        if (!unrolled) return {layout(false)};
        if (c.g.fixed_sizes()) return {layout(true)};
        return {layout(true), layout(false)};
    }
};

}  // namespace

const KernelTemplate &pointwise_template() {
    static const PointwiseTemplate t;
    return t;
}

}  // namespace solder::autosched
