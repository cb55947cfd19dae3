#include "schedules/block_reduction/block_reduction.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "autosched/model/generic_reason.h"
#include "autosched/model/pipeline_funcs.h"
#include "schedules/block_reduction/block_reduction_schedule.h"
#include "schedules/split_k/split_k_plan.h"

namespace solder::autosched {

namespace {

using Halide::Expr;
using Halide::Internal::Call;
using Halide::Internal::Function;

// An index expression in the reduction's own vars: the vars it uses, and the var it is (if it is one).
struct Index {
    std::set<std::string> vars;
    std::string exact;
    bool uses(const std::string &v) const { return vars.count(v) > 0; }
};

// Walks the update's values and, at each call to a member, that member's definition with its args
// in the reduction's vars: each read of an input or another Func is looked at as the reduction
// makes it. A member met again with the same indices is not walked again (a stencil chain's taps
// would otherwise be walked 3^n times).
struct ReadsThroughMembers : Halide::Internal::IRVisitor {
    std::string self, pure0;
    std::vector<std::string> rvars;  // innermost first
    std::map<std::string, const Function *> members;
    std::map<std::string, Index> env;  // the vars of the definition being walked
    std::set<std::string> seen;
    InnermostReads r;

    Index index_of(const Expr &e) {
        struct Vars : Halide::Internal::IRVisitor {
            const std::map<std::string, Index> *env;
            Index ix;
            using IRVisitor::visit;
            void visit(const Halide::Internal::Variable *op) override {
                if (auto it = env->find(op->name); it != env->end())
                    ix.vars.insert(it->second.vars.begin(), it->second.vars.end());
            }
        } vars;
        vars.env = &env;
        e.accept(&vars);
        if (const auto *v = e.as<Halide::Internal::Variable>())
            if (auto it = env.find(v->name); it != env.end()) vars.ix.exact = it->second.exact;
        return vars.ix;
    }

    bool any_rvar(const Index &ix) const {
        for (auto &v : rvars)
            if (ix.uses(v)) return true;
        return false;
    }

    void read(const Call *op) {
        const Index inner = index_of(op->args[0]);
        const bool uses_rvar = any_rvar(inner), follows = inner.uses(pure0);
        bool outer_walks = false;
        for (size_t i = 1; i < op->args.size(); i++) outer_walks = outer_walks || any_rvar(index_of(op->args[i]));
        r.walks_rvar = r.walks_rvar || inner.uses(rvars[0]);
        r.along_results = r.along_results || (follows && !uses_rvar);
        r.slides_along_results = r.slides_along_results || (follows && uses_rvar);
        r.strided_along_results = r.strided_along_results || (follows && !uses_rvar && outer_walks);
        r.walks_rvar_beside_results = r.walks_rvar_beside_results || (inner.exact == pure0 && op->args.size() >= 2 &&
                                                                      index_of(op->args[1]).uses(rvars[0]));
        for (auto &a : op->args) r.shared_along_results = r.shared_along_results && !index_of(a).uses(pure0);
    }

    using IRVisitor::visit;
    void visit(const Halide::Internal::Let *op) override {
        op->value.accept(this);
        env[op->name] = index_of(op->value);
        op->body.accept(this);
    }
    void visit(const Call *op) override {
        IRVisitor::visit(op);  // calls inside its args
        if ((op->call_type != Call::Halide && op->call_type != Call::Image) || op->name == self || op->args.empty())
            return;
        auto m = members.find(op->name);
        if (m == members.end()) {
            read(op);
            return;
        }
        std::map<std::string, Index> at;
        std::string key = op->name + "#" + std::to_string(op->value_index);
        const Function &M = *m->second;
        for (size_t i = 0; i < op->args.size() && i < M.args().size(); i++) {
            Index ix = index_of(op->args[i]);
            key += "|" + ix.exact + ":";
            for (auto &v : ix.vars) key += v + ",";
            at[M.args()[i]] = std::move(ix);
        }
        if (!seen.insert(key).second) return;
        std::swap(env, at);
        M.values()[size_t(op->value_index)].accept(this);
        std::swap(env, at);
    }
};

}  // namespace

InnermostReads innermost_reads(const Function &f, const std::vector<Function> &inlined) {
    ReadsThroughMembers reads;
    reads.self = f.name();
    reads.pure0 = f.args()[0];
    for (auto &rv : f.update(0).schedule().rvars()) reads.rvars.push_back(rv.var);
    for (auto &a : f.args()) reads.env[a] = Index{{a}, a};
    for (auto &v : reads.rvars) reads.env[v] = Index{{v}, v};
    for (const Function &m : inlined) reads.members[m.name()] = &m;
    for (const Expr &v : f.update(0).values()) v.accept(&reads);
    return reads.r;
}

namespace {
// Points each lane of a block reduction walks at least (block_reduction_params).
constexpr int64_t kMinPointsPerLane = 32;
}  // namespace

BlockReductionParams block_reduction_params(const Halide::Internal::Definition &update,
                                            const std::vector<int64_t> &extents, int64_t points) {
    BlockReductionParams p;
    // Fewer lanes where each result has few points, down to a warp: each lane walks at least
    // kMinPointsPerLane of them. Measured on the H200, 16384 average pools of 32 x 32 points took
    // 129.6 us with 256 lanes (4 points each, then two levels of partials), 63.2 with 64, 38.7 with
    // 32 (Anderson2021: 77.2, a thread per result).
    while (p.lanes > 32 && int64_t(p.lanes) * kMinPointsPerLane > points) p.lanes /= 2;
    p.lanes = int(std::min<int64_t>(p.lanes, std::max<int64_t>(1, points)));
    // Several RVars fused into one walk: each point's RVars come from dividing by the extents of
    // all but the outermost. At run-time extents that is a signed division and remainder by a
    // register per point, which left group_norm's statistics (64 x 64 x 32 points each)
    // bound by integer instructions at 40% of DRAM's bandwidth. Then the lanes go 2-D instead.
    const auto &rvars = update.schedule().rvars();
    bool divides = false;
    for (size_t i = 0; i + 1 < rvars.size(); i++)
        divides = divides || !Halide::Internal::as_const_int(Halide::Internal::simplify(rvars[i].extent));
    if (extents.size() == rvars.size()) {
        p.lanes_x = block_reduction_lanes_x(extents, divides, p.lanes);
        if (p.lanes_x > 0) {
            int lanes_y = 1;
            while (p.lanes_x * lanes_y < p.lanes && lanes_y < extents[1]) lanes_y *= 2;
            p.lanes = p.lanes_x * lanes_y;
            p.unroll_inner = extents[0] >= 2 * int64_t(p.lanes_x);
        }
    }
    return p;
}

void set_block_reduction_threads(const BlockReductionParams &p, int elem_bytes, LaunchShape &s) {
    const int second = block_reduction_second_partials(p.lanes);
    // 2-D lanes: lanes_x by lanes / lanes_x, the second level's threads along x too.
    s.threads[0] = p.lanes_x > 0 ? std::max(p.lanes_x, second) : p.lanes;
    s.threads[1] = p.lanes_x > 0 ? p.lanes / p.lanes_x : 1;
    s.shared_bytes = (p.lanes + second) * elem_bytes;  // both levels
}

namespace {

// Whether the template computes both of the root's stages in one launch, a copy's
// (schedule_block_reduction): one update, and no pipeline output.
bool stages_in_copy(const FuncNode &O) { return O.updates == 1 && !O.is_output; }

// Rows of an interleaved image's results (FuncNode::interleaved) whose reduction along its pixels
// takes a block per result: fewer, and each block's few results are better summed by a thread.
constexpr int64_t kMinInterleavedRows = 32;

// Fewer points per result than this, over results enough to fill the device one thread each: one
// thread per result (the pointwise template) sums them.
constexpr int64_t kMinBlockReductionPoints = 256;

// A reduction alone in its kernel, with the row template's block reduction: one block per result,
// its reduction split across the block's threads (SOLDER_DISABLE=single_kernel_groups turns it off).
class BlockReductionTemplate : public KernelTemplate {
public:
    TemplateKind kind() const override { return TemplateKind::BlockReduction; }

    std::string why_not(const KernelContext &c) const override {
        const FuncNode &O = c.root_node();
        if (!c.opt.single_kernel_groups) return "single_kernel_groups is off";
        if (!c.opt.gpu) return "not a GPU target";
        // Pure Funcs it reads through are inlined into its update (a dequantized weight).
        std::vector<Halide::Internal::Function> inlined;
        if (!c.members.empty() && !c.opt.reduction_members) return "other Funcs are fused into the kernel";
        for (int m : c.members) {
            const FuncNode &M = c.g.nodes[size_t(m)];
            if (M.updates > 0 || M.is_reduction() || M.is_extern || has_specializations(M.function))
                return "other Funcs are fused into the kernel, not all of them pure";
            inlined.push_back(M.function);
        }
        const bool refined = O.updates > 1 && reduction_then_refinements(O.function);
        if (!O.is_reduction() || O.dims.empty() || (O.updates != 1 && !refined))
            return "the root is not a reduction of one update with pure dims (and refinements in place after it)";
        const auto &def = O.function.update(0);
        if (def.schedule().rvars().empty()) return "its update has no RVar";
        if (has_predicate(def) && !O.predicated_reduction && !refined)
            return "its RDom has a predicate, and more makes it generic";
        // A predicate that loads at the result's own index (CSR segments) with more points per
        // result, or fewer results: a block each (predicate_loads_at_pure_vars), where its lanes'
        // loads are neighbours. (Each sequence's mean over its first len(b) tokens, `x(c, r, b)`,
        // reads along the results: lanes along the RVar would each load a row apart.)
        const DeviceProfile &d = c.opt.device;
        const bool few_points = O.reduction_points < kMinBlockReductionPoints && O.points() >= int64_t(d.sms) * 256;
        const InnermostReads reads = innermost_reads(O.function, inlined);
        if (has_predicate(def) && predicate_loads_at_pure_vars(O.function, def) && !few_points && reads.walks_rvar)
            return "";
        // nl_means's patch sums: 49 points each for 192 million results took a block of 49 lanes per
        // result (and, with its four dims fused into grid x at run-time extents, Halide sized each
        // block's partials in shared memory over whole rows: the launch failed on the H100).
        const bool thread_each = O.points() >= int64_t(d.sms) * d.blocks_per_sm_to_fill * 256;
        // Few points per result over results enough for a block of 256 threads per SM: 65536 CSR
        // segment sums of up to 32 points took 85.5 us on the H200 in a block of 32 lanes each,
        // 12.0 with a thread each, when each segment's start and end were its RDom's extent instead
        // of its predicate. (Fewer results: each thread's walk would be the whole kernel's latency,
        // the block's lanes shorten it.)
        if (O.reduction_points < kMinBlockReductionPoints && (thread_each || few_points))
            return "each result reduces fewer than " + std::to_string(kMinBlockReductionPoints) +
                   " points and there are results enough for a thread each";
        // A contraction with a tile of results along two dims (a convolution's weight gradient:
        // 64 x 64 channels of 25088 products each per tap) takes split-K in contraction tiles
        // (schedules/split_k/split_k_plan.h), each operand's load shared by 4 results. Here each
        // block would load both operands again for its one result: measured on the H200, a user's
        // 3 x 3 weight gradient over 8 x 56 x 56 took 2947 us so.
        if (const auto dims = split_contraction_dims(c.g, c.opt, c.root); dims.second > 0)
            return "a contraction over its dims " + std::to_string(dims.first) + " and " + std::to_string(dims.second) +
                   " (split-K in contraction tiles shares its operands' loads; a block per result loads both "
                   "again for each)";
        // A matrix product (4 million results of 1024 products, each row of B read along the
        // results) took 34.7 ms on the H100 in blocks of 256 lanes per result, and 1.36 ms with a
        // thread per result.
        if (thread_each && reads.along_results)
            return "there are results enough for a thread each, and it reads an input along the results' innermost "
                   "dim (one thread per result reads it coalesced, lanes along its RVar a row apart)";
        // A window that slides along the results (`in((x + 1 - r.x) / 2, ...)`, a transposed
        // convolution of 1920 x 1080 x 8 results): a warp of threads, one per result, loads
        // neighbouring points; a block per result of its 64 taps would be 16.6 million blocks.
        if (thread_each && reads.slides_along_results)
            return "there are results enough for a thread each, and its reads slide along the results' innermost dim "
                   "(a window: one thread per result reads it coalesced)";
        // A cumulative sum per point of 1024 x 1024 (`r.where(r <= x)`) took 1437 us on the H200 in
        // a block per result, each reading its row again; a thread per result, 230 us (Li2018).
        if (thread_each && reads.shared_along_results)
            return "there are results enough for a thread each, and neighbouring results read the same points (a "
                   "warp of threads, one per result, loads each once)";
        // (Or the dim beside an interleaved image's channels: a user's maximum of each channel
        // along each row of an interleaved 8-bit RGB 4K image took 1538 us on the H100 with a
        // thread per row walking its 3840 pixels.)
        if (!reads.walks_rvar && !(reads.walks_rvar_beside_results && O.interleaved(kMinInterleavedRows)))
            return "its RVar does not walk the innermost dim of what it reads (one thread per result reads "
                   "those coalesced)";
        // Some reads walk the RVar, another follows the results and walks the RVar in an outer
        // dim (a column sum of a normalized matrix, `(x(c, r) - mean(r)) * rstd(r)`, its row
        // statistics inlined): the block's lanes would read x a row apart each. (Not an interleaved
        // image's channels: their rows are a few points apart. Nor a reduction alone in its kernel:
        // LoRA's down-projection `a(r, k) * x(k, n)` reads its small `a` so, cached, and ran 4%
        // faster on the H100 with a block per result than with a thread each.)
        if (!inlined.empty() && reads.strided_along_results && !O.interleaved(kMinInterleavedRows))
            return "it reads an input along the results' innermost dim (lanes along its RVar would read it a row "
                   "apart each)";
        return "";
    }

    std::optional<KernelChoice> choose(const KernelContext &c) const override {
        const FuncNode &O = c.root_node();
        if (!why_not(c).empty()) return std::nullopt;
        KernelChoice kc = c.whole_root_choice(TemplateKind::BlockReduction, O.points());
        // With its producers inline, only where the cost model expects it faster than the later
        // templates' kernel (a thread per result, or split-K).
        kc.compare_later = !c.members.empty();
        return kc;
    }

    void fill(const KernelPlanContext &c, KernelPlan &k) const override {
        const FuncNode &O = c.g.nodes[size_t(c.root)];
        if (stages_in_copy(O)) k.launches = 1;  // (launch_shapes)
        k.params = block_reduction_params(O.function.update(0),
                                          O.rvar_extents.empty() ? std::vector<int64_t>{} : O.rvar_extents[0],
                                          O.reduction_points);
    }

    void apply(ApplyContext &c, const KernelPlan &k) const override {
        const BlockReductionParams &p = *k.get<BlockReductionParams>();
        schedule_block_reduction(c.w, c.get(k.root), c.target, p.lanes, p.lanes_x, p.unroll_inner);
    }

    // One block per result: 256 lanes whose partials and the 16 sums of those sit in shared memory
    // (schedule_block_reduction), or one lane per reduced point where there are fewer (Halide
    // bounds the lanes' loop by the fused RVars' extent: 49 for a 7 x 7 window). Both stages in one
    // launch, the copy's; for an output, or with refinements in place after the reduction, a
    // launch per stage, the pure stage's a thread per block.
    std::vector<LaunchShape> launch_shapes(const ShapeContext &c, const KernelPlan &k) const override {
        const FuncNode &O = c.root_node();
        std::vector<LaunchShape> out;
        if (stages_in_copy(O)) {
            LaunchShape s;
            s.stage = O.name + " (copy)";
            set_grid(s, stage_extents(O, 0), 0, c.grid);
            set_block_reduction_threads(*k.get<BlockReductionParams>(), O.elem_bytes, s);
            return {s};
        }
        for (int stage = 0; stage <= O.updates; stage++) {
            LaunchShape s;
            s.stage = stage_name(O, stage);
            if (stage > 1) {
                // A refinement in place after the reduction: 256 threads over its innermost dim.
                std::vector<int64_t> e = stage_extents(O, stage);
                e[0] = blocks_of(e[0], kRefinementThreads);
                set_grid(s, e, 1, c.grid);
                s.threads[0] = kRefinementThreads;
                out.push_back(s);
                continue;
            }
            set_grid(s, stage_extents(O, stage), 0, c.grid);
            if (stage > 0) set_block_reduction_threads(*k.get<BlockReductionParams>(), O.elem_bytes, s);
            out.push_back(s);
        }
        return out;
    }
};

}  // namespace

const KernelTemplate &block_reduction_template() {
    static const BlockReductionTemplate t;
    return t;
}

}  // namespace solder::autosched
