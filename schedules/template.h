// A kernel template: one way to build a kernel, in one folder (schedules/<name>/), registered in
// schedules/registry.cpp. Each has its own parameter struct (autosched/model/kernel_params.h) and
// three steps:
//   choose  "can I build this kernel?": for a root and the Funcs fused into it, the template's
//           shape and costs (through the CostModel), or nothing when it does not apply, with
//           the reason in why_not;
//   fill    "with what?": its parameters in the plan, once the plan's placements are known;
//   apply   "how?": the Halide schedule, through the ScheduleWriter;
// and its launches at the planning estimates (launch_shapes), which the planner checks against the
// device's limits.
// The registry tries the templates in priority order; the first whose choose answers builds the
// kernel. Steps that change kernels across the plan (split-K, shared split-K, horizontal launches,
// inner-outer) live in their own folders beside the templates.
#pragma once
#include <any>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "Halide.h"
#include "autosched/model/cost_model.h"
#include "autosched/model/func_graph.h"
#include "autosched/model/kernel_choice.h"
#include "autosched/model/options.h"
#include "autosched/model/plan.h"
#include "schedules/launch_shapes.h"
#include "schedules/writer/schedule_writer.h"

namespace solder::autosched {

// One candidate kernel while the search weighs partitions.
struct KernelContext {
    const FuncGraph &g;
    const PlannerOptions &opt;
    CostModel cost;
    int root;
    const std::vector<int> &members;  // non-root nodes computed in it
    std::vector<bool> inside;         // members, by node
    bool reduction_member = false;    // some member is a reduction
    // A member with a generic reason, -1 if none (in a plan's own partitions, only one that reduces
    // per point, FuncNode::generic_per_point, is ever a member): only the pointwise template takes
    // such a kernel, computing the member per point in the threads that read it.
    int generic_member = -1;
    // Members other kernels read too (shared_members, autosched/model/inline_copies.h): inlined
    // at each call whatever the template would compute per tile or per block, by node; and the
    // members that are not, which only this kernel computes.
    std::vector<bool> shared;
    std::vector<int> own;

    KernelContext(const FuncGraph &g, const PlannerOptions &opt, int root, const std::vector<int> &members);
    const FuncNode &root_node() const { return g.nodes[size_t(root)]; }
    // A choice of `kind` whose reads are costed over the root's whole region at once (templates
    // with no per-block shape of their own: generic, single, block reduction).
    // `every_call`: each load of an input counts (CostModel::kernel_reads), members recomputed
    // wherever they are read.
    KernelChoice whole_root_choice(TemplateKind kind, int64_t blocks, bool every_call = false) const;
};

// One kernel of the plan being filled in (placements known).
struct KernelPlanContext {
    const FuncGraph &g;
    const PlannerOptions &opt;
    const KernelChoice &kc;
    int root;
    Plan &plan;
    const std::vector<std::set<int>> &groups;  // the kernels (by root) each Func is computed in
};

// Applying a plan to the pipeline's Funcs.
struct ApplyContext {
    ScheduleWriter &w;
    const Halide::Target &target;
    const Plan &plan;
    std::function<Halide::Func(const std::string &)> get;  // a Func of the pipeline by the plan's name
    std::set<std::string> split;                           // reductions split-K sums in partials
    std::map<std::string, std::any> prepared;              // per kernel name: what its prepare step made

    // The Funcs the plan computes per block of `k` (ComputeAtBlock), with their points and row dims.
    struct AtBlock {
        std::vector<Halide::Func> funcs;
        std::vector<int64_t> points;
        std::vector<std::string> row_dims;
        std::vector<std::string> thread_dims;  // FuncPlan::thread_dim
        std::vector<int64_t> thread_extents;   // FuncPlan::thread_extent
    };
    AtBlock at_block(const KernelPlan &k) const;
};

class KernelTemplate {
public:
    virtual ~KernelTemplate() = default;
    virtual TemplateKind kind() const = 0;
    virtual std::optional<KernelChoice> choose(const KernelContext &c) const = 0;
    // Why the template does not build this kernel (empty: it does; choose then answers).
    virtual std::string why_not(const KernelContext &c) const = 0;
    // Members it computes over a box of their own (per tile), not inlined at each call: what
    // choose_kernel leaves out when it counts the copies of inlined definitions
    // (autosched/model/inline_copies.h).
    virtual std::set<int> computed_apart(const KernelContext &) const { return {}; }
    // Sets k.params (and may adjust k.launches, push explanations to the plan).
    virtual void fill(const KernelPlanContext &c, KernelPlan &k) const = 0;
    // The root's stages in one loop nest, one launch (else one launch per stage).
    virtual bool one_loop_nest() const { return false; }
    // Before any kernel is applied: rewrites (rfactor) that other kernels' templates then place.
    virtual void prepare(ApplyContext &, const KernelPlan &) const {}
    virtual void apply(ApplyContext &c, const KernelPlan &k) const = 0;
    // Its launches on a GPU at the planning estimates, as apply lays them out (grid, threads and
    // shared memory per block), for the device's limits (autosched/model/device_limits.h). Split-K's
    // launches are not its own (schedules/launch_shapes.h).
    virtual std::vector<LaunchShape> launch_shapes(const ShapeContext &c, const KernelPlan &k) const = 0;
};

}  // namespace solder::autosched
