#include "schedules/total_reduction/total_reduction.h"

#include <algorithm>

#include "schedules/block_reduction/block_reduction.h"
#include "schedules/launch_shapes.h"
#include "schedules/total_reduction/total_reduction_schedule.h"
#include "schedules/writer/reduction_walk.h"
#include "autosched/model/pipeline_funcs.h"

namespace solder::autosched {

namespace {

// Fewer points than this and one thread reduces them as fast as the launches that would spread them
// (the single template's kernel).
constexpr int64_t kMinTotalPoints = 16384;
// Points each slice (one block's) reduces at least.
constexpr int64_t kMinSlicePoints = 4096;
// Results at most a quarter of the blocks that fill the device: more, and one block each fills it.
constexpr int64_t kMaxResultsShare = 4;

// Results at most, at the estimates, for the layout with threads along the results
// (TotalReductionParams::lane_results), and the threads of its blocks. Up to kWideLaneResults
// results keep a warp of lanes each; more (a channels-last feature map's 64 channels) take
// kLaneResultThreads over the results and fewer lanes, at least kMinLanes.
constexpr int64_t kMaxLaneResults = 128;
constexpr int64_t kWideLaneResults = 32;
constexpr int kLaneResultThreads = 256;
constexpr int kMinLanes = 4;

// The results are few and read along the innermost dim of what the update reads, its innermost
// RVar along none (the channel means of an interleaved image, in(c, r.x, r.y)): one block per
// result with lanes along the RVar would read a few elements of each cache line.
bool lane_results(const FuncNode &O) {
    if (O.dims.empty() || O.points() > kMaxLaneResults) return false;
    const InnermostReads r = innermost_reads(O.function);
    return !r.walks_rvar && r.along_results;
}

// The RVar of a walk over RVars of extents `e` (innermost first, several) cut into `want` slices:
// the outermost, unless it has fewer steps than that (a volume's 16 planes, an RGB image's 3
// channels, a batch of 2); then the outermost RVar inside it with that many steps, or, where none
// has, the one with the most. Never the innermost: the slice's lanes walk it.
int cut_rvar(const std::vector<int64_t> &e, int64_t want) {
    const int n = int(e.size());
    int most = n - 1;
    for (int i = n - 1; i >= 1; i--) {
        if (e[size_t(i)] >= want) return i;
        if (e[size_t(i)] > e[size_t(most)]) most = i;
    }
    return most;
}

// A reduction's slices at the estimates: the RVar cut (innermost first; cut_rvar), its steps per
// slice, and the slices.
struct SliceLayout {
    int cut = 0;
    int64_t slice_rows = 1, slices = 1;
};

// The lane-results layout at the estimates: lanes of the innermost RVar per result (a block of
// about kLaneResultThreads: a warp of lanes or more up to kWideLaneResults results, at least
// kMinLanes beyond), and the slices of the cut RVar (of the lanes' walk, for a 1-D RDom): one
// block per slice for every result, as many as fill the device, each of at least kMinSlicePoints
// points per result; over an RDom of three RVars or more, where each block holds every result's
// share of its slice, kMinSlicePoints per block, counting every result's points. Where the cut RVar has
// fewer steps than those slices, a second RVar (the one with the most steps) is cut as well
// (`cut2`, -1 none), into as many as make up the rest: measured on the H100, a user's batch norm of
// a channels-last feature map (64 channels of 56 x 56 pixels, a batch of 32) took 157.8 us with its
// statistics' sums as a thread per channel split-K, 92.7 so; with 16 channels of 128 x 128, 147.5
// us in 128 slices (one block of 512 threads per SM), 139.9 in 640.
struct LaneLayout : SliceLayout {
    int lanes = 32;
    int cut2 = -1;
    int64_t slice_rows2 = 1, slices2 = 1;
};
LaneLayout lane_layout(const FuncNode &O, const DeviceProfile &d) {
    LaneLayout l;
    if (O.points() > kWideLaneResults)
        l.lanes = int(std::max<int64_t>(kMinLanes, kLaneResultThreads / O.points()));
    else
        while (l.lanes * 2 * O.points() <= kLaneResultThreads) l.lanes *= 2;
    const std::vector<int64_t> &e = O.rvar_extents[0];
    const int64_t full = int64_t(d.sms) * d.blocks_per_sm_to_fill;
    // (Counting every result's points only where a second RVar may be cut, an RDom of three or
    // more: measured on the H100, a user's 16 class means over a million samples, a 1-D RDom, took
    // 40.9 us in 256 slices and 53.2 in 521.)
    const int64_t results = e.size() >= 3 ? std::max<int64_t>(1, O.points()) : 1;
    const int64_t want =
        std::clamp<int64_t>(std::max<int64_t>(1, O.reduction_points) * results / kMinSlicePoints, 1, full);
    if (e.size() > 1) l.cut = cut_rvar(e, want);
    const int64_t outer =
        e.size() == 1 ? (std::max<int64_t>(1, e[0]) + l.lanes - 1) / l.lanes : std::max<int64_t>(1, e[size_t(l.cut)]);
    const int64_t slices = std::min(want, outer);
    l.slice_rows = (outer + slices - 1) / slices;
    l.slices = (outer + l.slice_rows - 1) / l.slice_rows;
    if (l.slices >= want || e.size() < 3) return l;
    for (int i = 1; i < int(e.size()); i++)
        if (i != l.cut && e[size_t(i)] >= 2 && (l.cut2 < 0 || e[size_t(i)] > e[size_t(l.cut2)])) l.cut2 = i;
    if (l.cut2 < 0) return l;
    const int64_t steps2 = e[size_t(l.cut2)];
    const int64_t slices2 = std::min(steps2, (want + l.slices - 1) / l.slices);
    l.slice_rows2 = (steps2 + slices2 - 1) / slices2;
    l.slices2 = (steps2 + l.slice_rows2 - 1) / l.slice_rows2;
    if (l.slices2 < 2) l.cut2 = -1, l.slice_rows2 = 1, l.slices2 = 1;
    return l;
}

// The other layout's slices at the estimates: as many per result as fill the device with blocks
// (results x slices), each of at least kMinSlicePoints points.
SliceLayout slice_layout(const FuncNode &O, const DeviceProfile &d) {
    const std::vector<int64_t> &e = O.rvar_extents[0];
    const int64_t full = int64_t(d.sms) * d.blocks_per_sm_to_fill;
    const int64_t per_result = std::max<int64_t>(1, full / std::max<int64_t>(1, O.points()));
    const int64_t want = std::clamp<int64_t>(std::max<int64_t>(1, O.reduction_points) / kMinSlicePoints, 1, per_result);
    SliceLayout l;
    l.cut = e.size() == 1 ? 0 : cut_rvar(e, want);
    const int64_t steps = std::max<int64_t>(1, e[size_t(l.cut)]);
    const int64_t slices = std::min(want, steps);
    l.slice_rows = (steps + slices - 1) / slices;
    l.slices = (e[size_t(l.cut)] + l.slice_rows - 1) / l.slice_rows;
    return l;
}

// `l` into the template's parameters, with the cut RVar's name where it is not the outermost.
void set_slices(TotalReductionParams &p, const FuncNode &O, const SliceLayout &l) {
    p.sliced_rvar = l.cut;
    p.slice_rows = l.slice_rows;
    p.slices = l.slices;
    if (l.cut + 1 < int(O.rvar_extents[0].size()))
        p.sliced_rvar_name = O.function.update(0).schedule().rvars()[size_t(l.cut)].var;
}

// A reduction to one result or few (an image's sum, a loss, per-channel means), each over many
// points, in a kernel of its own with only the pure Funcs it reads through: each result's points cut into slices, one block each, whose partials
// one block per result then adds (schedule_total_reduction). Without it the single template
// reduces every point of a 0-d one in one thread, and the block reduction template takes one block
// per result: 3 blocks for an image's channels.
class TotalReductionTemplate : public KernelTemplate {
public:
    TemplateKind kind() const override { return TemplateKind::TotalReduction; }

    std::string why_not(const KernelContext &c) const override {
        const FuncNode &O = c.root_node();
        if (!c.opt.gpu) return "not a GPU target";
        // Funcs it reads through, inlined into its update (a pointwise stage it sums): each slice's
        // block computes them at the points it reads.
        for (int m : c.members) {
            const FuncNode &M = c.g.nodes[size_t(m)];
            if (M.updates > 0 || M.function.has_extern_definition())
                return M.name + " is fused into the kernel and is not a pure Func to inline";
        }
        if (!O.is_reduction() || O.updates != 1 || O.rvar_extents.size() != 1 || O.rvar_extents[0].empty())
            return "the root is not a reduction of one update";
        const DeviceProfile &d = c.opt.device;
        if (O.points() * kMaxResultsShare > int64_t(d.sms) * d.blocks_per_sm_to_fill)
            return "its " + std::to_string(O.points()) + " results at the estimates are blocks enough (one each)";
        if (!O.dims.empty() && !innermost_reads(O.function).walks_rvar && !lane_results(O))
            return "its innermost RVar does not walk the innermost dim of what it reads (lanes along it would "
                   "read strided), and its results are not few ones read along that dim";
        if (O.reduction_points < kMinTotalPoints)
            return "it reduces fewer than " + std::to_string(kMinTotalPoints) + " points at the estimates";
        const auto &def = O.function.update(0);
        if (has_predicate(def) && !O.predicated_reduction) return "its RDom has a predicate, and more makes it generic";
        // (A scalar parameter can leave no slice at run time: at_least_one_slice bounds the
        // partials over it, where the schedule's source can write it.)
        const auto rvars = def.schedule().rvars();
        std::vector<int> cuts;
        if (lane_results(O)) {
            const LaneLayout l = lane_layout(O, d);
            cuts = {l.cut};
            if (l.cut2 >= 0) cuts.push_back(l.cut2);
        } else {
            cuts = {slice_layout(O, d).cut};
        }
        for (int cut : cuts)
            if (!slice_count_writable(rvars[size_t(cut)].extent))
                return "the extent of its RVar " + rvars[size_t(cut)].var +
                       ", cut into slices, reads a scalar parameter in a form the schedule's source cannot write";
        if (!Halide::Internal::prove_associativity(O.name, def.args(), def.values()).associative())
            return "Halide cannot prove its update associative (its points could not be reduced in slices)";
        return "";
    }

    std::optional<KernelChoice> choose(const KernelContext &c) const override {
        if (!why_not(c).empty()) return std::nullopt;
        const FuncNode &O = c.root_node();
        if (lane_results(O)) {
            const LaneLayout l = lane_layout(O, c.opt.device);
            KernelChoice kc = c.whole_root_choice(TemplateKind::TotalReduction, l.slices * l.slices2);
            kc.extra_launches = 1 + O.is_output;  // the partials' copy (and an output's pure stage)
            return kc;
        }
        KernelChoice kc =
            c.whole_root_choice(TemplateKind::TotalReduction, O.points() * slice_layout(O, c.opt.device).slices);
        kc.extra_launches = 1 + O.is_output;  // the slices' partials, an output's pure stage (launch_shapes)
        return kc;
    }

    void fill(const KernelPlanContext &c, KernelPlan &k) const override {
        const FuncNode &O = c.g.nodes[size_t(c.root)];
        k.launches = c.kc.launches();  // the partials' copy, the final sum (launch_shapes)
        TotalReductionParams p;
        if (lane_results(O)) {
            const LaneLayout l = lane_layout(O, c.opt.device);
            p.lane_results = true;
            p.lanes = l.lanes;
            p.threads = int(std::min<int64_t>(1024, ((O.points() * p.lanes + 31) / 32) * 32));
            set_slices(p, O, l);
            if (l.cut2 >= 0) {
                p.sliced_rvar2 = l.cut2;
                p.sliced_rvar2_name = O.function.update(0).schedule().rvars()[size_t(l.cut2)].var;
                p.slice_rows2 = l.slice_rows2;
                p.slices2 = l.slices2;
            }
            k.params = p;
            return;
        }
        set_slices(p, O, slice_layout(O, c.opt.device));
        // Each slice as the block reduction template reduces one result.
        std::vector<int64_t> e = O.rvar_extents[0];
        e[size_t(p.sliced_rvar)] = p.slice_rows;
        int64_t points = 1;
        for (int64_t x : e) points *= std::max<int64_t>(1, x);
        p.slice = block_reduction_params(O.function.update(0), e, points);
        k.params = p;
    }

    void apply(ApplyContext &c, const KernelPlan &k) const override {
        const TotalReductionParams &p = *k.get<TotalReductionParams>();
        // (A kernel run on the host instead, float64 on OpenCL without cl_doubles: the slices'
        // layout of the host.)
        if (p.lane_results && is_gpu_target(c.target)) {
            schedule_total_reduction_lane_results(c.w, c.get(k.root), c.target, p.sliced_rvar, p.slice_rows, p.lanes,
                                                  p.threads, p.sliced_rvar2, p.slice_rows2);
            return;
        }
        schedule_total_reduction(c.w, c.get(k.root), c.target, p.sliced_rvar, p.slice_rows, p.slice.lanes,
                                 p.slice.lanes_x, p.slice.unroll_inner);
    }

    // The slices' partials (zeroed, then one block per slice, as a block reduction; in the
    // lane-results layout one launch of their copy, each thread computing its own), then the root:
    // its pure stage one thread, its update one block adding the partials (a block reduction too).
    std::vector<LaunchShape> launch_shapes(const ShapeContext &c, const KernelPlan &k) const override {
        const FuncNode &O = c.root_node();
        const TotalReductionParams &p = *k.get<TotalReductionParams>();
        std::vector<LaunchShape> out;
        if (p.lane_results) {
            LaunchShape copy;
            copy.stage = O.name + "_intm (copy)";
            copy.grid[0] = (O.points() * p.lanes + p.threads - 1) / p.threads;
            copy.grid[1] = p.slices;
            copy.grid[2] = p.slices2;
            copy.threads[0] = p.threads;
            out.push_back(copy);
        } else {
            // (The partials' blocks: the results' dims, folded into grid x, then the slices; both
            // stages in the launch of their copy, schedule_block_reduction.)
            LaunchShape sum;
            sum.stage = O.name + "_intm (copy)";
            sum.grid[0] = O.dims.empty() ? p.slices : O.points();
            sum.grid[1] = O.dims.empty() ? 1 : p.slices;
            set_block_reduction_threads(p.slice, O.elem_bytes, sum);
            out.push_back(sum);
        }
        // The partials' sum: a block per result, in its copy's launch (an output's: its pure
        // stage a launch of its own, a thread per block, as schedule_block_reduction).
        LaunchShape pure, update;
        pure.stage = stage_name(O, 0);
        pure.grid[0] = update.grid[0] = O.points();
        update.stage = O.is_output ? stage_name(O, 1) : O.name + " (copy)";
        BlockReductionParams final_sum;  // (schedule_total_reduction's: 1-D lanes)
        final_sum.lanes = kTotalFinalLanes;
        set_block_reduction_threads(final_sum, O.elem_bytes, update);
        if (O.is_output) out.push_back(pure);
        out.push_back(update);
        return out;
    }
};

}  // namespace

const KernelTemplate &total_reduction_template() {
    static const TotalReductionTemplate t;
    return t;
}

}  // namespace solder::autosched
