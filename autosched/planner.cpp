// From the search's partition (autosched/search.h) to the Plan: placements (a non-root is computed
// per block where its kernel's template has blocks to hold it, else inlined), kernels with their
// bytes and estimates, materialized tensors, a reason for every edge that crosses kernels, and
// horizontal merging of independent 1-D pointwise kernels into shared launches.
#include "autosched/planner.h"

#include <stdexcept>

#include "autosched/model/cost_model.h"
#include "autosched/model/generic_reason.h"
#include "autosched/model/pipeline_funcs.h"
#include "autosched/partition.h"
#include "autosched/plan_limits.h"
#include "autosched/search.h"
#include "core/number_arg.h"
#include "schedules/horizontal/horizontal.h"
#include "schedules/inner_outer/inner_outer_plan.h"
#include "schedules/registry.h"
#include "schedules/reduction_tile/reduction_tile.h"
#include "schedules/row/row_blocks.h"
#include "schedules/row/side_outputs.h"
#include "schedules/shared_split_k/shared_split_k.h"
#include "schedules/stencil_tile/stencil_staging.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

namespace solder::autosched {

namespace {

// Node `n` stored in global memory, outermost dim first.
MaterializedTensor materialized(const FuncNode &n) {
    MaterializedTensor m;
    m.func = n.name;
    for (size_t d = n.dims.size(); d-- > 0;) m.shape.push_back(n.region[d].extent());
    m.type = n.type;
    m.bytes = n.bytes();
    return m;
}

// Outputs that row and pointwise kernels write beside their roots (schedules/row/side_outputs.h),
// by the root of the kernel that writes each: the search is run again with the candidates free,
// and its plan replaces `found` where every candidate it computes in a kernel can be written there
// and the plan then costs less. `notes` gets the reason either way.
std::map<int, int> written_beside_roots(const FuncGraph &g, const PlannerOptions &opt, const CostModel &cost,
                                        SearchResult &found, std::vector<Explanation> &notes) {
    const std::set<int> candidates = side_output_candidates(g, opt);
    if (candidates.empty()) return {};
    SearchResult alt = search_roots(g, opt, candidates);
    std::map<int, int> host;
    double extra_us = 0;
    for (int s : candidates) {
        if (alt.best.root[size_t(s)]) continue;
        int h = -1;
        const std::string why = side_output_why_not(g, alt.best.root, alt.best.groups, alt.best.choice, s, &h);
        if (!why.empty()) {
            notes.push_back({g.nodes[size_t(s)].name, "",
                             "stored by a kernel of its own, not beside its readers' "
                             "(side output): " +
                                 why});
            return {};
        }
        host[s] = h;
        extra_us += cost.stream_us(g.nodes[size_t(s)].bytes(), 0);
    }
    if (host.empty()) return {};
    char costs[96];
    std::snprintf(costs, sizeof costs, "%.3f us against %.3f us", alt.best.est_us + extra_us, found.best.est_us);
    if (alt.best.est_us + extra_us >= found.best.est_us * (1 - 1e-9)) {
        for (auto [s, h] : host)
            notes.push_back({g.nodes[size_t(s)].name, g.nodes[size_t(h)].name,
                             std::string("stored by a kernel of its own, not written beside this kernel's root "
                                         "(side output): the plan costs ") +
                                 costs + " with it stored"});
        return {};
    }
    for (auto [s, h] : host)
        notes.push_back({g.nodes[size_t(s)].name, g.nodes[size_t(h)].name,
                         std::string("written by this kernel beside its root (side output), from the values it "
                                     "computes there; its readers there read a copy: the plan costs ") +
                             costs + " with it stored by a kernel of its own"});
    found = std::move(alt);
    return host;
}

const char *const kInlinedUnboundedReason =
    "inlined into its readers: read at data-dependent points that nothing bounds, it has no region to store";

Plan plan_once(const FuncGraph &g, const PlannerOptions &opt, const std::string &app) {
    const int N = int(g.nodes.size());
    for (auto &name : opt.keep_unfused) {
        bool found = false;
        for (auto &n : g.nodes) found |= !n.is_input && (n.name == name || name_as_written(n.name) == name);
        if (!found) {
            std::string funcs;
            for (auto &n : g.nodes)
                if (!n.is_input && funcs.size() < 300) funcs += (funcs.empty() ? "" : ", ") + n.name;
            throw std::invalid_argument("keep_unfused names '" + printable(name) +
                                        "', which is no Func of the pipeline (its Funcs: " + funcs + ")");
        }
    }
    const CostModel cost(opt.device);
    SearchResult found = search_roots(g, opt);
    std::vector<Explanation> side_notes;
    const std::map<int, int> side_host = written_beside_roots(g, opt, cost, found, side_notes);
    const std::vector<bool> &root = found.best.root;
    const std::vector<std::set<int>> &groups = found.best.groups;
    std::map<int, KernelChoice> &choice = found.best.choice;
    std::map<int, std::string> &why = found.why;

    // Build the plan.
    Plan plan;
    plan.app = app;
    plan.search = found.summary;
    plan.fixed_sizes = g.fixed_sizes();
    std::map<int, std::vector<Region>> row_regions;     // per row-kernel root: what one block computes
    std::map<int, TileStaging> tile_staging;            // per stencil-tile root: what each tile stages
    std::map<int, ReductionTileShape> reduction_tiles;  // per reduction-tile root: where its Funcs go
    for (int i = 0; i < N; i++) {
        const FuncNode &n = g.nodes[i];
        if (n.is_input) {
            plan.min_bytes += g.least_read_bytes(i);
            if (n.is_extern) {
                plan.explanations.push_back({n.name, "",
                                             "an extern stage (define_extern): computed by its own code at root, "
                                             "between Solder's kernels; its readers read it from memory"});
                for (auto &a : n.function.extern_arguments())
                    if (a.is_func())
                        plan.explanations.push_back(
                            {Halide::Internal::Function(a.func).name(), n.name, kReadByExternReason});
            }
            continue;
        }
        if (n.is_output) plan.min_bytes += n.bytes();
        FuncPlan fp;
        fp.func = n.name;
        if (root[i]) {
            fp.placement = Placement::Root;
        } else if (side_host.count(i)) {
            fp.placement = Placement::Root;
            fp.anchor = g.nodes[size_t(side_host.at(i))].name;
        } else {
            int anchor = *groups[i].begin();
            const bool stencil_out = g.read_at_taps(i);
            // Computed once per block where the anchor's template has blocks to hold it: reductions
            // in row kernels, stencil producers in tiled kernels. Anything else is recomputed.
            const TemplateKind tmpl = choice[anchor].kind;
            bool at_block =
                groups[i].size() == 1 && ((n.is_reduction() && tmpl == TemplateKind::Row) ||
                                          (stencil_out && opt.compute_at && tmpl == TemplateKind::StencilTile));
            if (groups[i].size() == 1 && opt.gpu && opt.compute_at && tmpl == TemplateKind::StencilTile) {
                auto it = tile_staging.find(anchor);
                if (it == tile_staging.end()) {
                    std::vector<int> members;
                    for (int j = 0; j < N; j++)
                        if (!root[j] && groups[j].size() == 1 && *groups[j].begin() == anchor) members.push_back(j);
                    it = tile_staging.emplace(anchor, stencil_tile_staging(g, anchor, members)).first;
                    for (auto &note : it->second.notes)
                        plan.explanations.push_back({g.nodes[size_t(anchor)].name, "", note});
                }
                at_block = it->second.staged.count(i) > 0;
            }
            if (groups[i].size() == 1 && tmpl == TemplateKind::ReductionTile) {
                auto it = reduction_tiles.find(anchor);
                if (it == reduction_tiles.end()) {
                    it = reduction_tiles.emplace(anchor, reduction_tile_shape(g, anchor, choice[anchor].members)).first;
                }
                const ReductionTileShape &s = it->second;
                at_block = i == s.reduction || i == s.per_step ||
                           std::find(s.per_tile.begin(), s.per_tile.end(), i) != s.per_tile.end();
            }
            fp.placement = at_block ? Placement::ComputeAtBlock : Placement::Inline;
            if (at_block && tmpl == TemplateKind::Row) {
                auto it = row_regions.find(anchor);
                if (it == row_regions.end())
                    it = row_regions.emplace(anchor, row_block_regions(g, anchor, choice[anchor])).first;
                const Region &per_block = it->second[i];
                fp.block_points = region_points(per_block);
                size_t widest = 0;
                for (size_t d = 1; d < per_block.size() && d < n.dims.size(); d++)
                    if (per_block[d].extent() > per_block[widest].extent()) widest = d;
                if (widest > 0) fp.thread_dim = n.dims[widest];
                if (!per_block.empty()) fp.thread_extent = per_block[widest].extent();
            }
            if (at_block) fp.anchor = g.nodes[anchor].name;
        }
        plan.funcs.push_back(fp);
    }
    std::vector<int> kernel_root;
    for (int r = 0; r < N; r++) {
        if (!root[r]) continue;
        kernel_root.push_back(r);
        const KernelChoice &kc = choice[r];
        const FuncNode &O = g.nodes[r];
        KernelPlan k;
        k.name = "k" + std::to_string(plan.kernels.size()) + "_" + O.name;
        k.root = O.name;
        k.funcs.push_back(O.name);
        for (int m : kc.members) k.funcs.push_back(g.nodes[m].name);
        if (O.is_output) k.outputs.push_back(O.name);
        for (auto [s, host] : side_host) {
            if (host != r) continue;
            SideOutput so{g.nodes[size_t(s)].name, {}};
            for (int e : g.nodes[size_t(s)].out_edges)
                so.readers.push_back(g.nodes[size_t(g.edges[size_t(e)].consumer)].name);
            k.side.push_back(so);
            k.outputs.push_back(so.func);
        }
        for (auto [s, host] : found.best.hosted) {
            if (host != r) continue;
            SideOutput so{g.nodes[size_t(s)].name, {}, true};
            for (int e : g.nodes[size_t(s)].out_edges) {
                const int q = g.edges[size_t(e)].consumer;
                if (root[size_t(q)] ? q != r : !groups[size_t(q)].count(r) || groups[size_t(q)].size() > 1)
                    so.readers.push_back(g.nodes[size_t(q)].name);
            }
            k.side.push_back(so);
        }
        const KernelTemplate &t = kernel_template(kc.kind);
        // Row and stencil templates compute the root's one stage in one loop nest; a root with
        // update stages in a kernel of its own launches each stage; split-K adds two launches.
        k.launches = (t.one_loop_nest() ? 1 : 1 + O.updates) + (kc.launches() - 1);
        t.fill(KernelPlanContext{g, opt, kc, r, plan, groups}, k);
        k.blocks = kc.blocks;
        k.bytes_read = kc.bytes_read + kc.split_bytes;
        k.bytes_written = O.bytes() + 2 * kc.split_bytes;  // split-K's partials: zeroed, then summed
        k.est_us = cost.choice_us(kc, O.bytes());
        for (auto &so : k.side) {
            const FuncNode &S = g.nodes[size_t(g.find(so.func))];
            k.bytes_written += S.bytes();
            k.est_us += cost.stream_us(S.bytes(), 0);
            if (so.shared) plan.materialized.push_back(materialized(S));
        }
        if (kc.split_func >= 0) {
            const FuncNode &R = g.nodes[kc.split_func];
            SplitK sk;
            sk.func = R.name;
            sk.partials = partials_name(R.name);
            sk.slices = kc.split_k;
            sk.slice_rows = (R.reduction_points + kc.split_k - 1) / kc.split_k;
            sk.blocks = kc.split_blocks;
            sk.contraction_dx = kc.split_contraction_dx, sk.contraction_dy = kc.split_contraction_dy;
            sk.interleaved = kc.split_interleaved;
            k.split = sk;
            // Written by the first launch and read back by the second: a materialized intermediate.
            MaterializedTensor m = materialized(R);
            m.func = sk.partials;
            m.shape.insert(m.shape.begin(), kc.split_k);
            m.bytes = kc.split_bytes;
            plan.materialized.push_back(m);
        }
        plan.total_bytes += k.bytes_read + k.bytes_written;
        plan.est_us += k.est_us;
        plan.kernels.push_back(k);
        if (!O.is_output) plan.materialized.push_back(materialized(O));
    }
    plan.explanations.insert(plan.explanations.end(), side_notes.begin(), side_notes.end());
    for (int r = 0; r < N; r++) {
        if (g.nodes[r].generic.empty() || g.nodes[r].is_input) continue;
        const KernelPlan *own = nullptr;
        for (auto &k : plan.kernels)
            if (k.root == g.nodes[r].name) own = &k;
        if (root[r] && own && own->kind() != TemplateKind::Generic) {
            const bool refined = reduction_then_refinements(g.nodes[r].function);
            plan.explanations.push_back(
                {g.nodes[r].name, "",
                 own->template_name() +
                     (refined ? " template, its later updates (refinements in place) a launch each ("
                              : " template, its RDom's predicate evaluated at each point of each lane's walk (") +
                     g.nodes[r].generic + ")"});
        } else if (root[r]) {
            plan.explanations.push_back({g.nodes[r].name, "", "generic template: " + g.nodes[r].generic});
        } else {
            std::string readers;
            for (int k : groups[r]) readers += (readers.empty() ? "" : ", ") + g.nodes[k].name;
            plan.explanations.push_back({g.nodes[r].name, "",
                                         "computed per point in the threads of " + readers +
                                             ", which read each of its points once (not the generic template, "
                                             "though " +
                                             g.nodes[r].generic + ")"});
        }
    }
    // Every edge that crosses kernels, with the reason its producer is stored.
    for (auto &e : g.edges) {
        int p = e.producer;
        if (g.nodes[p].is_input || !root[p]) continue;
        std::string reason = why.count(p) ? why[p]
                             : g.nodes[p].is_output
                                 ? "it is a pipeline output: written once, then read back by this kernel"
                                 : "stored";
        plan.explanations.push_back({g.nodes[p].name, g.nodes[e.consumer].name, reason});
    }
    for (auto [s, host] : found.best.hosted)
        for (int e : g.nodes[size_t(s)].out_edges) {
            const int q = g.edges[size_t(e)].consumer;
            if (groups[size_t(q)].size() == 1 && *groups[size_t(q)].begin() == host && !root[size_t(q)]) continue;
            if (q == host) continue;
            plan.explanations.push_back(
                {g.nodes[size_t(s)].name, g.nodes[size_t(q)].name,
                 "a reduction used by several kernels: computed per block by " + g.nodes[size_t(host)].name +
                     "'s row kernel, which writes it beside its root for the others (shared reduction); they read "
                     "copies of the Funcs they read it through"});
        }
    const auto deps = kernel_dependencies(g, root, groups, found.best.hosted);
    share_split_k(g, opt, choice, deps, kernel_root, plan);
    // The plan's last steps, on a copy each: horizontal merges, then numbering and costing.
    auto finish = [&](Plan p, std::vector<int> kroot) {
        if (opt.horizontal) {
            merge_horizontal(g, root, deps, choice, p, kroot);
            merge_siblings(g, deps, choice, p, kroot);
        }
        merge_row_siblings(g, opt, deps, choice, cost, p, kroot);
        // Recost merged kernels (one launch per stage) and number them in order.
        p.est_us = 0;
        p.total_bytes = 0;
        for (size_t i = 0; i < p.kernels.size(); i++) {
            KernelPlan &k = p.kernels[i];
            if (!k.with.empty()) {
                k.name = "k" + std::to_string(i) + "_" + k.root + "_horizontal";
                k.est_us = cost.stream_us(k.bytes_read + k.bytes_written, k.launches);
            } else {
                k.name = "k" + std::to_string(i) + "_" + k.root;
            }
            p.est_us += k.est_us;
            p.total_bytes += k.bytes_read + k.bytes_written;
        }
        return p;
    };
    // Inner-outer fusion where it applies, kept when the whole plan costs less with it (or moves
    // fewer bytes, with fewest_bytes).
    Plan fused = plan;
    const int host = host_column_sums_in_rows(g, opt, choice, deps, kernel_root, fused);
    if (host < 0) plan = fused;  // unchanged but for the reasons it gave
    plan = finish(plan, kernel_root);
    if (host >= 0) {
        fused = finish(fused, kernel_root);
        char costs[160];
        std::snprintf(costs, sizeof costs, "%.1f us against %.1f us (%.2f MB against %.2f MB)", fused.est_us,
                      plan.est_us, double(fused.total_bytes) / 1e6, double(plan.total_bytes) / 1e6);
        KernelPlan h;  // the host, found by its template: the merges renumbered the kernels
        for (auto &k : fused.kernels)
            if (k.kind() == TemplateKind::InnerOuter) h = k;
        const bool faster = fused.est_us < plan.est_us;
        // Its launch within the device's limits (its grid stays as its column sums name it).
        std::vector<LimitViolation> over;
        if (opt.gpu) {
            h.launch_shapes = launch_shapes_of(g, opt, fused, h);
            over = check_device_limits(h, opt.device);
        }
        if (!h.side.empty()) {
            plan.explanations.push_back({h.get<InnerOuterParams>()->column_sums[0], h.root,
                                         "column sums not computed in this row kernel's blocks (inner-outer): it "
                                         "writes a side output, which the inner-outer kernel does not"});
        } else if (!over.empty()) {
            plan.explanations.push_back(
                {h.get<InnerOuterParams>()->column_sums[0], h.root,
                 "column sums not computed in this row kernel's blocks (inner-outer): " + over[0].text()});
        } else if (faster || (opt.fewest_bytes && fused.total_bytes < plan.total_bytes)) {
            plan = fused;
            plan.explanations.push_back({h.root, "",
                                         std::string("inner-outer kept: the plan costs ") + costs +
                                             (faster ? "" : " (taken for fewest_bytes)")});
        } else {
            plan.explanations.push_back(
                {h.get<InnerOuterParams>()->column_sums[0], h.root,
                 std::string(
                     "column sums not computed in this row kernel's blocks (inner-outer): the plan would cost ") +
                     costs + "; --enable fewest_bytes takes it"});
        }
    }
    if (plan.kernels.size() > 1)
        plan.explanations.push_back(
            {std::to_string(plan.kernels.size()) + " kernels", "",
             opt.horizontal ? "remaining kernels are separate launches: horizontal fusion merges independent 1-D "
                              "kernels, stage by stage (at most " +
                                  std::to_string(kMaxHorizontalRoots) +
                                  " per launch, for the kernel-parameter limit), pointwise kernels over the same "
                                  "points that read a common input, and the split-K launches of reductions over "
                                  "the same points, not other kernels so far"
                            : "horizontal fusion is disabled by option"});
    for (auto &name : g.inlined_unbounded) plan.explanations.push_back({name, "", kInlinedUnboundedReason});
    return plan;
}

// The root of the first kernel whose launch still breaks a device limit, with the reason it falls
// back to the generic template; -1 when that cannot help (it is generic already).
int fallback_root(const FuncGraph &g, const Plan &plan, const std::vector<LimitViolation> &left, std::string &why) {
    for (auto &v : left) {
        for (auto &k : plan.kernels) {
            if (k.name != v.kernel) continue;
            const int r = g.find(k.root);
            if (r < 0 || k.kind() == TemplateKind::Generic || !g.nodes[size_t(r)].generic.empty()) continue;
            why = "its " + k.template_name() + " kernel would break a device limit at the planned size: " + v.stage +
                  "'s launch needs " + v.needs() + ", above the device's " + std::to_string(v.max);
            return r;
        }
    }
    return -1;
}

}  // namespace

// A plan whose every launch is within the device's limits at the planning estimates: grids folded
// into x where y or z would be too large (autosched/plan_limits.h), and any kernel still beyond a
// limit replaced: its root takes the generic template (at most 256 threads, no shared memory),
// which stores what it cannot compute inline, and the plan is searched again.
Plan plan_pipeline(const FuncGraph &g, const PlannerOptions &opt, const std::string &app) {
    Plan plan = plan_once(g, opt, app);
    std::vector<LimitViolation> left = fit_device_limits(g, opt, plan);
    if (left.empty()) return plan;
    FuncGraph fallback = g;
    for (size_t tries = 0; !left.empty() && tries < g.nodes.size(); tries++) {
        std::string why;
        const int r = fallback_root(fallback, plan, left, why);
        if (r < 0) break;
        fallback.nodes[size_t(r)].generic = why;
        fallback.nodes[size_t(r)].generic_per_point = false;
        plan = plan_once(fallback, opt, app);
        left = fit_device_limits(fallback, opt, plan);
    }
    for (auto &v : left)
        plan.explanations.push_back(
            {v.stage, "", "no template Solder has keeps this launch within the device: " + v.text()});
    return plan;
}

}  // namespace solder::autosched
