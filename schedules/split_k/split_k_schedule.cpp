#include "schedules/split_k/split_k_schedule.h"

#include <stdexcept>
#include <utility>

#include "autosched/model/pipeline_funcs.h"
#include "schedules/pointwise/register_tile.h"
#include "schedules/split_k/split_k_plan.h"
#include "schedules/writer/reduction_walk.h"

namespace solder {
using namespace Halide;

namespace {

// One stage of split-K partials on the GPU (zeroing, or summing with `step` the walk): threads
// across `x`, `vector_width` neighbours each (coalesced), blocks over its strips and `outer`
// (folded into three grid dims), the walk serial inside each thread. New loops are named
// `prefix` + xo / xi / tx / xv, so members that use one prefix can be fused.
void lay_out_partials(ScheduleWriter &w, const StageRef &s, const Var &x, const std::vector<VarOrRVar> &outer,
                      const RVar *step, int vector_width, const std::string &prefix, const std::string &fold_tag) {
    Var xo(prefix + "xo"), xi(prefix + "xi"), tx(prefix + "tx"), xv(prefix + "xv");
    if (vector_width > 1) {
        w.split(s, x, xo, xi, 256 * vector_width, TailStrategy::GuardWithIf);
        w.split(s, xi, tx, xv, vector_width, TailStrategy::GuardWithIf);
    } else {
        w.split(s, x, xo, tx, 256, TailStrategy::GuardWithIf);
    }
    std::vector<VarOrRVar> blocks{xo};
    blocks.insert(blocks.end(), outer.begin(), outer.end());
    // rfactor leaves the slice dim where the rows were, inside the others: the walk innermost
    // (after the vector lanes), then the threads, then every block dim.
    std::vector<VarOrRVar> order;
    if (vector_width > 1) order.push_back(xv);
    if (step) order.push_back(*step);
    order.push_back(tx);
    order.insert(order.end(), blocks.begin(), blocks.end());
    w.reorder(s, order);
    gpu_blocks_over(w, s, blocks, fold_tag, 1);
    w.gpu_threads(s, tx);
    if (vector_width > 1) w.vectorize(s, xv, vector_width, TailStrategy::GuardWithIf);
}

// Whether a walk of `rows` steps per slice over `total` rows (unrolled as unroll_walk does) guards
// its steps: where the slices or the unrolled groups do not divide what they cut, or the rows are
// known only at run time. Each unrolled step is then under its own `if`, and its load waits for
// the branch: one load in flight per thread. Such a walk is partitioned (Stage::always_partition),
// so that every slice but the last runs its steps unguarded. Measured on the H100, layernorm_bwd's
// dbeta (a column sum down a run-time number of rows) 126 -> 64 us. Halide refuses the policy
// where nothing is guarded, and left its default on the stage's other loops, reported the walk
// unpartitioned: they are never partitioned.
bool walk_is_guarded(const Expr &total, int64_t rows) {
    const int64_t unroll = std::min<int64_t>(kLoadsInFlight, rows);
    auto n = Internal::as_const_int(Internal::simplify(total));
    return !n || *n % rows != 0 || (unroll > 1 && rows % unroll != 0);
}

// The pure stage of `partials` (its zeroing, a launch of its own) laid out for coalesced stores,
// over the layout a template gave it: its dims but the last kZeroGridDims fused along the threads,
// 256 each, the last ones (a contraction's second tile dim and the slices) grid dims. In a contraction's
// tiles with its taps serial in each block, a weight gradient's 58 MB of partials took 285 us to
// zero on the H200, each thread's 16 stores far apart.
void zero_coalesced(ScheduleWriter &w, Func partials) {
    const std::vector<std::string> &args = partials.function().args();
    if (args.size() < 2) return;
    gpu_flat_over(w, {partials}, args, kZeroGridDims, int(autosched::kSplitThreads), partials.name() + "_z");
}

}  // namespace

Func schedule_split_k_partials(ScheduleWriter &w, Func f, int64_t slice_rows, const Target &target, int contraction_dx,
                               int contraction_dy, bool interleaved) {
    auto fn = f.function();
    const auto rvars = fn.update(0).schedule().rvars();  // innermost first
    const std::string tag = f.name();
    // One RVar over every row: fused innermost into outer, so a slice is a run of whole rows.
    RVar rows(rvars[0].var);
    Expr total = rvars[0].extent;
    for (size_t i = 1; i < rvars.size(); i++) {
        total = total * rvars[i].extent;
        RVar fused(tag + "_rows" + std::to_string(i));
        w.fuse({f, 0}, rows, RVar(rvars[i].var), fused);
        rows = fused;
    }
    RVar ro(tag + "_slice_o"), ri(tag + "_slice_i");
    Var slice(tag + "_slice");
    w.split({f, 0}, rows, ro, ri, int(slice_rows), TailStrategy::GuardWithIf);
    Func partials = w.rfactor({f, 0}, ro, slice);
    w.compute_root(partials);
    at_least_one_slice(w, partials, slice.name(), total, slice_rows);
    if (!is_gpu_target(target)) return partials;
    if (contraction_dy >= 1) {
        schedule_contraction_tile_root(w, partials, contraction_dy, contraction_dx, true);
        zero_coalesced(w, partials);
        return partials;
    }
    // Both stages (zeroing, then sums) alike: threads across the innermost pure dim (coalesced), blocks over its strips,
    // the other pure dims and the slices; each thread walks its slice's rows serially.
    std::vector<Var> pv;
    for (auto &a : partials.function().args()) pv.emplace_back(a);
    // (Interleaved: dims 0 and 1 fused, the slice dim still last.)
    const bool fuse01 = interleaved && pv.size() >= 3;
    std::vector<VarOrRVar> outer(pv.begin() + (fuse01 ? 2 : 1), pv.end());
    const Var along = fuse01 ? Var(tag + "_p01") : pv[0];
    for (int stage = -1; stage <= 0; stage++) {
        if (fuse01) w.fuse({partials, stage}, pv[0], pv[1], along);
        lay_out_partials(w, {partials, stage}, along, outer, stage == 0 ? &ri : nullptr, 1, tag + "_p",
                         tag + "_p" + std::to_string(stage + 1));
    }
    unroll_walk(w, {partials, 0}, ri, Expr(int(slice_rows)));
    if (walk_is_guarded(total, slice_rows)) {
        w.never_partition_all({partials, 0});
        w.always_partition({partials, 0}, ri);
    }
    // (The zeroing stays a launch of its own: Halide will not compute an update with its own
    // pure stage.)
    return partials;
}

SharedSplitPartials rfactor_shared_split_k(ScheduleWriter &w, const std::vector<SharedSplitMember> &members,
                                           const std::vector<std::string> &names, int walk, int64_t rows) {
    SharedSplitPartials out;
    if (members.empty()) return out;
    // New loops under names shared by every member: compute_with matches fused loops by name.
    const std::string tag = "sk_" + members[0].f.name();
    out.slice = Var(tag + "_slice");
    out.step = RVar(tag + "_walk");
    RVar slice_o(tag + "_slice_o");
    const int n = int(names.size());
    for (const SharedSplitMember &m : members) {
        if (int(m.domain.size()) != n || int(m.reduced.size()) != n || !m.reduced[walk] || m.reduced[0] ||
            m.domain[walk] != names[walk])
            throw std::runtime_error("shared split-K: " + m.f.name() + " does not reduce over the same domain as " +
                                     members[0].f.name());
        w.split({m.f, 0}, RVar(names[walk]), slice_o, out.step, int(rows), TailStrategy::GuardWithIf);
        std::vector<std::pair<RVar, Var>> keep{{slice_o, out.slice}};
        for (int p = 0; p < n; p++)
            if (p != walk && m.reduced[p]) keep.push_back({RVar(m.domain[p]), Var(names[p])});
        out.partials.push_back(w.rfactor({m.f, 0}, keep));
        for (const auto &rv : m.f.function().update(0).schedule().rvars())
            if (rv.var == names[walk]) at_least_one_slice(w, out.partials.back(), out.slice.name(), rv.extent, rows);
    }
    return out;
}

std::vector<Func> schedule_shared_split_k(ScheduleWriter &w, const std::vector<SharedSplitMember> &members,
                                          const std::vector<std::string> &names, int walk, int64_t rows,
                                          int vector_width, const Target &target) {
    SharedSplitPartials sk = rfactor_shared_split_k(w, members, names, walk, rows);
    if (sk.partials.empty()) return {};
    const std::string tag = "sk_" + members[0].f.name();
    Var tx(tag + "_tx");
    const int n = int(names.size());
    // Guarded vector lanes (the partials' width need not be a multiple of the block's) become
    // masked vectors, which Halide 21's OpenCL (C) backend cannot emit: vectors on CUDA only.
    if (!target.has_feature(Target::CUDA)) vector_width = 1;
    for (size_t i = 0; i < sk.partials.size(); i++) {
        Func intm = sk.partials[i];
        w.compute_root(intm);
        if (is_gpu_target(target)) {
            std::vector<VarOrRVar> outer;
            for (int p = 1; p < n; p++)
                if (p != walk) outer.push_back(Var(names[p]));
            outer.push_back(sk.slice);
            for (int stage = -1; stage <= 0; stage++) {
                lay_out_partials(w, {intm, stage}, Var(names[0]), outer, stage == 0 ? &sk.step : nullptr, vector_width,
                                 tag + "_", tag + "_p" + std::to_string(stage + 1));
                // Partitioned, the fused block loops of several members would nest an `if`
                // between block loops (their bounds are not known to be equal): Halide rejects it.
                w.never_partition_all({intm, stage});
            }
            unroll_walk(w, {intm, 0}, sk.step, Expr(int(rows)));
            if (i > 0) {
                w.compute_with({intm}, {sk.partials[0]}, tx);
                w.compute_with({intm, 0}, {sk.partials[0], 0}, sk.step);
            }
        } else {
            w.parallel({intm, 0}, sk.slice);
        }
    }
    return sk.partials;
}

namespace {

// The RVar of `rvars` with the largest constant extent, and that extent: (-1, 0) if none is constant.
std::pair<int, int64_t> longest_constant_rvar(const std::vector<Internal::ReductionVariable> &rvars) {
    int longest = -1;
    int64_t extent = 0;
    for (size_t i = 0; i < rvars.size(); i++) {
        auto e = Internal::as_const_int(Internal::simplify(rvars[i].extent));
        if (e && *e > extent) extent = *e, longest = int(i);
    }
    return {longest, extent};
}

}  // namespace

void unroll_partials_sum(ScheduleWriter &w, Func f) {
    auto fn = f.function();
    if (fn.updates().size() != 1) return;
    const auto &rvars = fn.update(0).schedule().rvars();
    const auto [longest, extent] = longest_constant_rvar(rvars);
    if (longest < 0 || extent <= 1) return;
    RVar r(rvars[size_t(longest)].var);
    if (rvars.size() > 1) {
        std::vector<VarOrRVar> order{r};
        for (size_t i = 0; i < rvars.size(); i++)
            if (int(i) != longest) order.push_back(RVar(rvars[i].var));
        w.reorder({f, 0}, order);
    }
    // A factor that divides the extent where one is near kPartialsInFlight: no guard in each step.
    int factor = int(std::min<int64_t>(kPartialsInFlight, extent));
    for (int d = factor; d >= kPartialsInFlight / 2; d--)
        if (extent % d == 0) {
            factor = d;
            break;
        }
    w.unroll({f, 0}, r, factor, TailStrategy::GuardWithIf);
}

Func spread_partials_sum(ScheduleWriter &w, Func f) {
    auto fn = f.function();
    if (fn.updates().size() != 1 || fn.args().size() != 1) return Func();
    const auto &rvars = fn.update(0).schedule().rvars();
    const auto [longest, extent] = longest_constant_rvar(rvars);
    if (longest < 0 || extent % kPartialLanes != 0 || extent / kPartialLanes < 2) return Func();
    const std::string tag = f.name();
    RVar r(rvars[size_t(longest)].var), ro(tag + "_pl"), ri(tag + "_pi");
    Var lane(tag + "_plane");
    w.split({f, 0}, r, ro, ri, int(extent / kPartialLanes), TailStrategy::GuardWithIf);
    return w.rfactor({f, 0}, {{ro, lane}});
}

}  // namespace solder
