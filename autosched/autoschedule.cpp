#include "autosched/autoschedule.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "autosched/apply_plan.h"
#include "autosched/author_schedule.h"
#include "autosched/bf16_on_gpu.h"
#include "autosched/clamped_predicates.h"
#include "autosched/deviation_sums.h"
#include "autosched/hoisted_requirements.h"
#include "autosched/ordered_folds.h"
#include "autosched/scatter_folds.h"
#include "autosched/sibling_sums.h"
#include "autosched/cloned_reductions.h"
#include "autosched/computed_bins.h"
#include "autosched/model/func_graph.h"
#include "autosched/model/generic_reason.h"
#include "core/progress.h"
#include "autosched/model/pipeline_funcs.h"

namespace solder::autosched {
using namespace Halide;
using namespace Halide::Internal;

namespace {

// How each Func is read: whether every call to it is at its consumer's own point, and whether an
// extern stage reads it.
struct Reads {
    std::set<std::string> elsewhere;  // read at other points than the consumer's own somewhere
    std::set<std::string> by_extern;  // an input of an extern stage
};

Reads reads_of(const std::map<std::string, Function> &env) {
    Reads r;
    for (auto &[name, f] : env) {
        if (f.has_extern_definition()) {
            for (auto &a : f.extern_arguments())
                if (a.is_func()) r.by_extern.insert(Function(a.func).name());
            continue;
        }
        struct Visit : IRVisitor {
            const std::vector<std::string> *pure = nullptr;
            bool update = false;
            std::set<std::string> *elsewhere = nullptr;
            using IRVisitor::visit;
            void visit(const Call *c) override {
                if (c->call_type == Call::Halide) {
                    bool own_point = !update && c->args.size() == pure->size();
                    for (size_t i = 0; own_point && i < c->args.size(); i++) {
                        const auto *v = c->args[i].as<Variable>();
                        own_point = v && v->name == (*pure)[i];
                    }
                    if (!own_point) elsewhere->insert(c->name);
                }
                IRVisitor::visit(c);
            }
        } v;
        std::vector<std::string> pure = f.args();
        v.pure = &pure;
        v.elsewhere = &r.elsewhere;
        for (auto &e : f.values()) e.accept(&v);
        v.update = true;
        for (auto &u : f.updates()) {
            for (auto &e : u.values()) e.accept(&v);
            for (auto &e : u.args()) e.accept(&v);
        }
    }
    return r;
}

// A Func that only reads pipeline inputs (a boundary condition, a cast): recomputed wherever read.
bool reads_only_inputs(const Function &f) {
    struct Visit : IRVisitor {
        bool other = false;
        using IRVisitor::visit;
        void visit(const Call *c) override {
            if (c->call_type == Call::Halide && !c->func.defined()) other = true;
            if (c->call_type == Call::Halide && c->func.defined() && !is_input_wrapper(Function(c->func))) other = true;
            IRVisitor::visit(c);
        }
    } v;
    for (auto &e : f.values()) e.accept(&v);
    return !v.other;
}

// The pipeline's buffers (inputs and outputs) of 8- or 16-bit elements not declared 16-byte
// aligned, for CUDA: Halide 21's PTX then loads and stores their vectors one element at a time;
// declared aligned (set_host_alignment(16)), its branch for whole vectors moves 8 bytes an access.
bool narrow_elements(const Type &t) { return t.bits() == 8 || t.bits() == 16; }

std::vector<std::string> unaligned_narrow_buffers(const std::vector<Func> &outputs, const Target &target) {
    std::vector<std::string> names;
    if (!target.has_feature(Target::CUDA)) return names;
    for (auto &[name, p] : pipeline_input_buffers(outputs))
        if (narrow_elements(p.type()) && p.host_alignment() < 16) names.push_back(name);
    for (auto &o : outputs)
        for (auto &b : o.output_buffers())
            if (narrow_elements(b.type()) && b.host_alignment() < 16) names.push_back(o.name());
    return names;
}

const char *const kUnalignedNarrowReason =
    "8- or 16-bit elements in a buffer not declared 16-byte aligned: Halide 21's CUDA code then loads and stores "
    "them one at a time; set_host_alignment(16) on it lets whole vectors move 8 bytes an access";

const char *const kHostedWithoutSideOutputsReason =
    "planned without side outputs or shared reductions: a kernel that would write one runs on the host";

const char *const kHostedApartReason =
    "planned without kernels launched together: one that would be runs on the host, where launches are not shared";

}  // namespace

Plan plan_generic_pipeline(const std::vector<Func> &outputs, const std::string &why, const std::string &app,
                           const std::set<std::string> &author_roots) {
    std::vector<Function> outs;
    for (auto &o : outputs) outs.push_back(o.function());
    auto env = build_environment(outs);
    const Reads reads = reads_of(env);
    std::set<std::string> out_names;
    for (auto &o : outputs) out_names.insert(o.name());

    Plan plan;
    plan.app = app;
    plan.search = "none: every Func through the generic template";
    plan.fixed_sizes = false;
    plan.explanations.push_back({"pipeline", "", "the fused planner cannot analyse it: " + why});
    for (auto &name : topological_order(outs, env)) {
        const Function &f = env.at(name);
        if (is_input_wrapper(f)) continue;
        FuncPlan fp;
        fp.func = name;
        const bool root = out_names.count(name) || author_roots.count(name) || f.has_extern_definition() ||
                          !f.updates().empty() || reads.by_extern.count(name) ||
                          (reads.elsewhere.count(name) && !reads_only_inputs(f));
        fp.placement = root ? Placement::Root : Placement::Inline;
        plan.funcs.push_back(fp);
        if (!root) continue;
        KernelPlan k;
        k.name = "k" + std::to_string(plan.kernels.size()) + "_" + name;
        k.root = name;
        k.funcs = {name};
        if (out_names.count(name)) k.outputs = {name};
        k.params = GenericParams{};
        k.launches = f.has_extern_definition() ? 0 : 1 + int(f.updates().size());
        plan.kernels.push_back(k);
        const std::string r = generic_reason(f);
        if (!r.empty()) plan.explanations.push_back({name, "", "generic template: " + r});
    }
    return plan;
}

namespace {

// Values at the pipeline's estimates (its graph built on the first question), or -1 where one is
// not a constant there or the graph cannot be built.
AtEstimates values_at_estimates(const std::vector<Func> &outputs) {
    auto graph = std::make_shared<std::optional<FuncGraph>>();
    auto built = [outputs, graph]() -> const FuncGraph * {
        try {
            if (!*graph) graph->emplace(FuncGraph::build(outputs));
            return &**graph;
        } catch (const std::exception &) {
            return nullptr;
        }
    };
    AtEstimates a;
    a.extent = [built](const Expr &e) -> int64_t {
        const FuncGraph *g = built();
        if (!g) return -1;
        const auto v = Internal::as_const_int(g->at_estimates(e));
        return v ? *v : -1;
    };
    a.points = [built](const std::string &func) -> int64_t {
        const FuncGraph *g = built();
        const int n = g ? g->find(func) : -1;
        return n < 0 ? -1 : g->nodes[size_t(n)].points();
    };
    return a;
}

}  // namespace

Autoscheduled autoschedule(const std::vector<Func> &outputs, const Target &target, const PlannerOptions &opt,
                           const std::string &app, Pipeline *checks) {
    Autoscheduled a;
    SlowStepNotice notice("planning " + std::to_string(pipeline_functions(outputs).size()) + " Funcs" +
                          (app.empty() ? std::string() : " of " + app));
    // (Whatever the caller set, no atomics the target cannot have.)
    PlannerOptions for_target = opt;
    limit_to_target(for_target, target);
    // Directives written before auto-scheduling: cleared, each compute_root() kept as a root.
    const std::vector<AuthorSchedule> authored = clear_author_schedules(outputs);
    for (auto &s : authored)
        if (s.computed_at_root) for_target.author_roots.insert(s.func);
    if (!authored.empty() && !quiet_requested())
        std::fprintf(stderr, "%s\n", author_schedule_warning(authored).c_str());
    std::set<std::string> hoisted;
    if (checks && target.has_gpu_feature()) {
        const std::vector<Requirement> moved = hoist_requirements(outputs);
        add_requirements(*checks, moved);
        for (auto &r : moved) hoisted.insert(r.func);
    }
    // (First, so that the plan prices the operations that will run.)
    const std::vector<std::string> bf16 = emulate_bf16_for_gpu(outputs, target);
    // Arg-max and arg-min folds Halide cannot split: cut into chunks folded in parallel.
    const std::vector<OrderedFold> folds = cut_ordered_folds(outputs);
    // Keep-the-better scatters (a depth buffer's nearest point): two atomic passes on a GPU.
    const std::vector<ScatterFold> scatters =
        target.has_gpu_feature() ? rewrite_scatter_folds(outputs) : std::vector<ScatterFold>{};
    // Scatter bins computed from the RDom's points: a Func of their own, so increments stay atomic adds.
    const std::vector<ComputedBin> computed_bins = target.has_gpu_feature() && opt.computed_bins
                                                       ? rewrite_computed_bins(outputs, target)
                                                       : std::vector<ComputedBin>{};
    // Variances written as two sums (the mean's, then the squared deviations from it): one pass.
    const std::vector<DeviationSum> deviations = target.has_gpu_feature() && opt.one_pass_deviations
                                                     ? rewrite_deviation_sums(outputs, values_at_estimates(outputs))
                                                     : std::vector<DeviationSum>{};
    // Reductions over the same points that share a load: one walk.
    const std::vector<SiblingGroup> siblings = target.has_gpu_feature() && opt.sibling_reductions
                                                   ? rewrite_sibling_reductions(outputs, for_target.author_roots)
                                                   : std::vector<SiblingGroup>{};
    // A small reduction several outputs read point for point: a copy for each (after the sibling
    // walks, which would join the copies again).
    std::vector<ClonedReduction> cloned =
        target.has_gpu_feature() && opt.cloned_reductions
            ? clone_shared_small_reductions(outputs, values_at_estimates(outputs), for_target.author_roots)
            : std::vector<ClonedReduction>{};
    auto plan = [&]() {
        try {
            a.plan = plan_pipeline(FuncGraph::build(outputs), for_target, app);
        } catch (const EstimateError &) {
            throw;
        } catch (const AnalysisError &e) {
            a.plan = plan_generic_pipeline(outputs, e.what(), app, for_target.author_roots);
        }
    };
    plan();
    // Planned with the copies and without them: the plan the cost model expects faster is kept.
    std::string clones_dropped;
    if (!cloned.empty()) {
        Plan with = std::move(a.plan);
        undo_cloned_reductions(cloned);
        plan();
        if (with.est_us < a.plan.est_us) {
            redo_cloned_reductions(cloned);
            a.plan = std::move(with);
        } else {
            char costs[96];
            std::snprintf(costs, sizeof costs, "%.3f us with them against %.3f us", with.est_us, a.plan.est_us);
            clones_dropped = costs;
        }
    }
    // Kernels launched together cannot run on the host: where one would have to, the pipeline is
    // planned again without launching kernels together (a random float16 pipeline's two lookup
    // tables, launched together on OpenCL without cl_half, failed to build).
    if (!launches_needing_host(a.plan, outputs, target).empty()) {
        for_target.horizontal = false;
        plan();
        a.plan.explanations.push_back({"pipeline", "", kHostedApartReason});
    }
    auto hosted = kernels_on_host(a.plan, outputs, target);
    // A kernel that runs on the host has no blocks to write outputs beside its root from: where
    // one was planned to, the pipeline is planned again without side outputs.
    const auto writes_beside = [&](const std::string &kernel) {
        for (auto &k : a.plan.kernels)
            if (k.name == kernel) return !k.side.empty();
        return false;
    };
    if (std::any_of(hosted.begin(), hosted.end(), [&](auto &h) { return writes_beside(h.first); })) {
        for_target.side_outputs = for_target.shared_reductions = false;
        plan();
        hosted = kernels_on_host(a.plan, outputs, target);
        a.plan.explanations.push_back({"pipeline", "", kHostedWithoutSideOutputsReason});
    }
    for (auto &s : authored) a.plan.explanations.push_back({s.func, "", author_schedule_reason(s)});
    for (auto &f : hoisted) a.plan.explanations.push_back({f, "", hoisted_requirement_reason()});
    for (auto &f : bf16) a.plan.explanations.push_back({f, "", kBf16EmulatedReason});
    for (auto &f : folds) a.plan.explanations.push_back({f.func, "", ordered_fold_reason(f)});
    drop_provable_form_hints(a.plan, folds);
    for (auto &f : scatters) a.plan.explanations.push_back({f.func, "", scatter_fold_reason(f)});
    for (auto &b : computed_bins) a.plan.explanations.push_back({b.func, "", computed_bin_reason(b)});
    for (auto &d : deviations) a.plan.explanations.push_back({d.deviations, "", deviation_sum_reason(d)});
    for (auto &g : siblings) a.plan.explanations.push_back({g.walked, "", sibling_group_reason(g)});
    for (auto &c : cloned) a.plan.explanations.push_back({c.reduction, "", cloned_reduction_reason(c, clones_dropped)});
    for (auto &b : unaligned_narrow_buffers(outputs, target))
        a.plan.explanations.push_back({b, "", kUnalignedNarrowReason});
    for (auto &[k, why] : hosted) a.plan.explanations.push_back({k, "", why});
    for (auto &[f, why] : funcs_without_vectors(a.plan, outputs, target)) a.plan.explanations.push_back({f, "", why});
    // (After planning, which reads the predicates as written; before the plan's splits copy them.)
    for (auto &f : clamp_predicate_loads(outputs)) a.plan.explanations.push_back({f, "", clamped_predicate_reason()});
    a.source = apply_plan(a.plan, outputs, target);
    return a;
}

}  // namespace solder::autosched
