// From the search's partition (autosched/search.h) to the Plan: placements (a non-root is computed
// per block where its kernel's template has blocks to hold it, else inlined), kernels with their
// bytes and estimates, materialized tensors, a reason for every edge that crosses kernels, and
// horizontal merging of independent 1-D pointwise kernels into shared launches.
#include "autosched/planner.h"

#include <stdexcept>

#include "autosched/model/generic_reason.h"
#include "autosched/inner_outer.h"
#include "autosched/kernel_cost.h"
#include "autosched/row_staging.h"
#include "autosched/search.h"
#include "autosched/shared_split_k.h"
#include "autosched/stencil_staging.h"
#include "autosched/warp_rows.h"
#include "core/number_arg.h"
#include "schedules/fused_templates.h"
#include "autosched/model/pipeline_funcs.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

namespace solder::autosched {

namespace {

// A short row (puzzler's 64-wide slices) is covered by row / width threads, one `width`-wide access
// each, when that is 32 or 64: then a block holds several rows (below) instead of leaving most of
// 256 threads idle. Longer rows keep 256 / rows threads each. Not fewer than a warp: measured on
// the H100, puzzler with 16 threads of 4-wide accesses per row took 41 us, with 32 of 2-wide 37 us
// (its 16 slices unrolled per thread spilled registers at the 64-register cap).
bool short_row_threads(int64_t extent, int width, int64_t *threads) {
    if (width < 1 || extent % width != 0) return false;
    int64_t t = extent / width;
    if (t != 32 && t != 64) return false;
    if (threads) *threads = t;
    return true;
}

// 16-byte accesses for the root's stores (8 bf16, 4 f32), when the width divides what one block
// covers of the innermost dim: 256 threads' worth for rows (or a whole short row), one element
// per thread otherwise.
int vector_width_for(const FuncNode &O, const KernelChoice &kc) {
    if (O.updates > 0 || O.dims.empty() || O.elem_bytes > 8) return 1;
    if (kc.template_name != "pointwise" && kc.template_name != "row") return 1;
    const bool row = kc.template_name == "row";
    const int64_t extent = O.region[0].extent();
    for (int v = std::max(1, std::min(8, 16 / O.elem_bytes)); v > 1; v /= 2) {
        if (!row && extent % v == 0) return v;
        if (row && (extent % (256 * int64_t(v)) == 0 || short_row_threads(extent, v, nullptr))) return v;
    }
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
                       const DeviceProfile &d, const KernelPlan &k) {
    const int rank = int(O.dims.size());
    if (kc.template_name != "row" || rank <= kc.inner_dims || kc.split_func >= 0) return 1;
    for (int m : kc.members) {
        const FuncPlan *p = plan.find(g.nodes[m].name);
        if (p && p->placement == Placement::ComputeAtBlock && p->block_points != 1) return 1;
    }
    if (int(k.unrolled_dims.size()) != kc.inner_dims - 1) return 1;
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
    return r;
}

// Every stage of a 1-D root writes its pure var (f(x) = ..., f(x) += ...): the horizontal template
// tiles each stage over it, and fuses stage by stage.
bool stages_over_pure_var(const FuncNode &n) {
    for (int u = 0; u < n.updates; u++) {
        const auto &args = n.function.update(u).args();
        const auto *v = args.size() == 1 ? args[0].as<Halide::Internal::Variable>() : nullptr;
        if (!v || v->name != n.dims[0]) return false;
    }
    return true;
}

// Threads per block for each stage of a generic root with exactly one pure var it writes as it is
// (schedules/generic.h): halved from 256 down to a warp while the stage's points at the estimate
// give fewer than four blocks per SM. A scan's RVar walks serially in each thread: with 2160 rows
// in blocks of 256, 9 of the H100's 132 SMs would do all the work.
std::vector<int> generic_stage_threads(const FuncNode &O, const DeviceProfile &d) {
    std::vector<int> threads;
    for (int s = 0; s <= O.updates; s++) {
        const auto pure = stage_pure_vars(O.function, s);
        int t = 0;
        if (pure.size() == 1) {
            const size_t dim = size_t(std::find(O.dims.begin(), O.dims.end(), pure[0].name()) - O.dims.begin());
            const int64_t points = dim < O.region.size() ? O.region[dim].extent() : 1;
            t = 256;
            while (t > 32 && (points + t - 1) / t < 4 * int64_t(d.sms)) t /= 2;
        }
        threads.push_back(t);
    }
    return threads;
}

// Kernel parameters are limited (4 KB for CUDA): each fused root passes two buffers and a few
// bounds, so a horizontal group stays under this many roots.
constexpr size_t kMaxHorizontalRoots = 100;

// Merges independent 1-D kernels into one launch per stage (Halide compute_with): pointwise
// roots, or reductions stage by stage. A kernel may join a group only if no kernel of the group
// depends on it, or it on them, through any chain, and if its loops are named as the group's.
void merge_horizontal(const FuncGraph &g, const std::vector<bool> &root, const std::vector<std::set<int>> &deps,
                      const std::map<int, KernelChoice> &choice, Plan &plan, std::vector<int> &kernel_root) {
    const int N = int(g.nodes.size());
    std::vector<std::vector<int>> hgroups;
    for (int r = 0; r < N; r++) {
        if (!root[r]) continue;
        const FuncNode &n = g.nodes[r];
        if (choice.at(r).template_name != "pointwise" || n.dims.size() != 1 || !stages_over_pure_var(n)) continue;
        // A kernel that launches split-K partials keeps its plan's split-K fields only as the first
        // of its group: it starts one.
        const KernelPlan &own = plan.kernels[size_t(std::find(kernel_root.begin(), kernel_root.end(), r) - kernel_root.begin())];
        if (!own.split_func.empty() && own.split_launched_with.empty()) {
            hgroups.push_back({r});
            continue;
        }
        bool placed = false;
        for (auto &hg : hgroups) {
            if (hg.size() >= kMaxHorizontalRoots) continue;
            bool ok = true;
            for (int m : hg) ok = ok && !deps[r].count(m) && !deps[m].count(r);
            ok = ok && g.nodes[hg[0]].updates == n.updates;  // stage by stage, one launch each
            // compute_with matches the fused block loops by name (x.h_bx against i.h_bx fails).
            if (ok && n.dims[0] != g.nodes[hg[0]].dims[0]) {
                plan.explanations.push_back({g.nodes[hg[0]].name, n.name,
                                             "not launched together: their loops are named differently (" +
                                                 g.nodes[hg[0]].dims[0] + ", " + n.dims[0] +
                                                 "), and Halide's compute_with fuses loops by name"});
                ok = false;
            }
            if (ok) {
                hg.push_back(r);
                placed = true;
                break;
            }
        }
        if (!placed) hgroups.push_back({r});
    }
    std::set<int> drop;
    for (auto &hg : hgroups) {
        if (hg.size() < 2) continue;
        int first = int(std::find(kernel_root.begin(), kernel_root.end(), hg[0]) - kernel_root.begin());
        KernelPlan &k = plan.kernels[first];
        for (size_t i = 1; i < hg.size(); i++) {
            int ki = int(std::find(kernel_root.begin(), kernel_root.end(), hg[i]) - kernel_root.begin());
            const KernelPlan &o = plan.kernels[ki];
            k.with.push_back(o.root);
            k.funcs.insert(k.funcs.end(), o.funcs.begin(), o.funcs.end());
            k.outputs.insert(k.outputs.end(), o.outputs.begin(), o.outputs.end());
            k.bytes_read += o.bytes_read;
            k.bytes_written += o.bytes_written;
            k.blocks += o.blocks;
            k.launches = std::max(k.launches, o.launches);  // stage by stage
            drop.insert(ki);
        }
    }
    std::vector<KernelPlan> kept;
    std::vector<int> kept_root;
    for (size_t i = 0; i < plan.kernels.size(); i++)
        if (!drop.count(int(i))) kept.push_back(plan.kernels[i]), kept_root.push_back(kernel_root[i]);
    plan.kernels = kept;
    kernel_root = kept_root;
}

}  // namespace

Plan plan_pipeline(const FuncGraph &g, const PlannerOptions &opt, const std::string &app) {
    const int N = int(g.nodes.size());
    for (auto &name : opt.keep_unfused) {
        bool found = false;
        for (auto &n : g.nodes) found |= !n.is_input && (n.name == name || name_as_written(n.name) == name);
        if (!found) {
            std::string funcs;
            for (auto &n : g.nodes)
                if (!n.is_input && funcs.size() < 300) funcs += (funcs.empty() ? "" : ", ") + n.name;
            throw std::invalid_argument("keep_unfused names '" + printable(name) + "', which is no Func of the pipeline (its Funcs: " +
                                        funcs + ")");
        }
    }
    SearchResult found = search_roots(g, opt);
    const std::vector<bool> &root = found.best.root;
    const std::vector<std::set<int>> &groups = found.best.groups;
    std::map<int, KernelChoice> &choice = found.best.choice;
    std::map<int, std::string> &why = found.why;

    // Build the plan.
    Plan plan;
    plan.app = app;
    plan.search = found.summary;
    plan.fixed_sizes = g.fixed_sizes();
    std::map<int, std::vector<Region>> row_regions;  // per row-kernel root: what one block computes
    std::map<int, TileStaging> tile_staging;          // per stencil-tile root: what each tile stages
    for (int i = 0; i < N; i++) {
        const FuncNode &n = g.nodes[i];
        if (n.is_input) {
            plan.min_bytes += n.bytes();
            continue;
        }
        if (n.is_output) plan.min_bytes += n.bytes();
        FuncPlan fp;
        fp.func = n.name;
        if (root[i]) {
            fp.placement = Placement::Root;
        } else {
            int anchor = *groups[i].begin();
            const bool stencil_out = g.read_through_stencil(i);
            // Computed once per block where the anchor's template has blocks to hold it: reductions
            // in row kernels, stencil producers in tiled kernels. Anything else is recomputed.
            const std::string &tmpl = choice[anchor].template_name;
            bool at_block = groups[i].size() == 1 && ((n.is_reduction() && tmpl == "row") ||
                                                      (stencil_out && opt.compute_at && tmpl == "stencil_tile"));
            if (groups[i].size() == 1 && opt.gpu && opt.compute_at && tmpl == "stencil_tile") {
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
            fp.placement = at_block ? Placement::ComputeAtBlock : Placement::Inline;
            if (at_block && tmpl == "row") {
                auto it = row_regions.find(anchor);
                if (it == row_regions.end())
                    it = row_regions.emplace(anchor, row_block_regions(g, anchor, choice[anchor])).first;
                fp.block_points = region_points(it->second[i]);
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
        k.template_name = kc.template_name;
        k.inner_dims = kc.inner_dims;
        k.vector_width = opt.gpu ? vector_width_for(O, kc) : 1;
        if (opt.gpu && kc.template_name == "stencil_tile" && O.dims.size() >= 2 && O.updates == 0)
            k.whole_tiles = O.region[0].extent() >= kStencilTileX && O.region[1].extent() >= kStencilTileY;
        if (opt.gpu && kc.template_name == "row") {
            int64_t threads = 0;
            if (short_row_threads(O.region[0].extent(), k.vector_width, &threads)) k.row_threads = int(threads);
            // Unrolled middle dims: a stack's select over one (puzzler's 16 slices) folds to one
            // branch per iteration; rolled, each element computed all 16.
            for (int dim = 1; dim < kc.inner_dims && dim < int(O.dims.size()); dim++)
                if (O.region[dim].extent() <= kMaxUnrolledRowDim) k.unrolled_dims.push_back({dim, O.region[dim].extent()});
        }
        // Warps along one row per block where the row is long enough, before several rows per
        // block: measured on the H100, nvfuser_2146's output kernel (57344 rows of 1024, four row
        // sums) took 194 us with 8 rows per block and the shared-memory tree, 115 us with 2 warps
        // per row.
        // (`k.rows_per_block` is still 1 here: the shape is judged for one row per block.)
        WarpRowShape ws;
        if (opt.gpu && kc.template_name == "row") {
            ws = warp_row_shape(g, plan, k, r);
            if (ws.warps > 0) {
                k.row_warps = ws.warps;
                k.row_threads = 0;  // the warps' 32 x warps threads, not a short row's
                k.row_extent = O.region[0].extent();
                k.vector_width = ws.vector_width;
            } else if (!ws.why_not.empty()) {
                plan.explanations.push_back({O.name, "", ws.why_not});
            }
        }
        k.rows_per_block = opt.gpu && ws.warps == 0 ? rows_per_block_for(g, O, kc, plan, opt.device, k) : 1;
        if (k.rows_per_block > 1) assign_row_dims(g, r, kc, plan);
        if (opt.gpu && opt.stage_rows && kc.template_name == "row" && ws.warps == 0)
            k.staged = choose_staged_inputs(g, r, kc, row_block_regions(g, r, kc), groups, k.rows_per_block);
        k.blocks = kc.blocks;
        if (opt.gpu && kc.template_name == "generic") k.stage_threads = generic_stage_threads(O, opt.device);
        int chunked = 0;  // scatters in chunks of rows take two launches more (their chunks' bins)
        for (int u = 0; opt.gpu && kc.template_name == "generic" && u < O.updates; u++)
            chunked += chunked_scatter(O.function, u) ? 2 : 0;

        k.bytes_read = kc.bytes_read + kc.split_bytes;
        k.bytes_written = O.bytes() + 2 * kc.split_bytes;  // split-K's partials: zeroed, then summed
        k.est_us = choice_us(opt.device, kc, O.bytes());
        // Row and stencil templates compute the root's one stage in one loop nest; a root with
        // update stages in a kernel of its own launches each stage; split-K adds two launches.
        const bool one_nest = kc.template_name == "row" || kc.template_name == "stencil_tile";
        k.launches = (one_nest ? 1 : 1 + O.updates) + (kc.launches() - 1) + chunked;
        if (kc.split_func >= 0) {
            const FuncNode &R = g.nodes[kc.split_func];
            k.split_func = R.name;
            k.partials = partials_name(R.name);
            k.split_k = kc.split_k;
            k.split_blocks = kc.split_blocks;
            // Written by the first launch and read back by the second: a materialized intermediate.
            MaterializedTensor m;
            m.func = k.partials;
            m.shape.push_back(kc.split_k);
            for (size_t d = R.dims.size(); d-- > 0;) m.shape.push_back(R.region[d].extent());
            m.type = R.type;
            m.bytes = kc.split_bytes;
            plan.materialized.push_back(m);
        }
        plan.total_bytes += k.bytes_read + k.bytes_written;
        plan.est_us += k.est_us;
        plan.kernels.push_back(k);
        if (!O.is_output) {
            MaterializedTensor m;
            m.func = O.name;
            for (size_t d = O.dims.size(); d-- > 0;) m.shape.push_back(O.region[d].extent());
            m.type = O.type;
            m.bytes = O.bytes();
            plan.materialized.push_back(m);
        }
    }
    for (int r = 0; r < N; r++)
        if (root[r] && !g.nodes[r].generic.empty())
            plan.explanations.push_back({g.nodes[r].name, "", "generic template: " + g.nodes[r].generic});
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
    const auto deps = kernel_dependencies(g, root, groups);
    share_split_k(g, opt, choice, deps, kernel_root, plan);
    // The plan's last steps, on a copy each: horizontal merges, then numbering and costing.
    auto finish = [&](Plan p, std::vector<int> kroot) {
        if (opt.horizontal) merge_horizontal(g, root, deps, choice, p, kroot);
        // Recost merged kernels (one launch per stage) and number them in order.
        p.est_us = 0;
        for (size_t i = 0; i < p.kernels.size(); i++) {
            KernelPlan &k = p.kernels[i];
            if (!k.with.empty()) {
                k.name = "k" + std::to_string(i) + "_" + k.root + "_horizontal";
                k.est_us = double(k.bytes_read + k.bytes_written) / opt.device.bandwidth_bytes_per_s * 1e6 +
                           opt.device.launch_us * k.launches;
            } else {
                k.name = "k" + std::to_string(i) + "_" + k.root;
            }
            p.est_us += k.est_us;
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
        char cost[160];
        std::snprintf(cost, sizeof cost, "%.1f us against %.1f us (%.2f MB against %.2f MB)", fused.est_us, plan.est_us,
                      double(fused.total_bytes) / 1e6, double(plan.total_bytes) / 1e6);
        KernelPlan h;  // the host, found by its template: the merges renumbered the kernels
        for (auto &k : fused.kernels)
            if (k.template_name == "inner_outer") h = k;
        const bool faster = fused.est_us < plan.est_us;
        if (faster || (opt.fewest_bytes && fused.total_bytes < plan.total_bytes)) {
            plan = fused;
            plan.explanations.push_back({h.root, "", std::string("inner-outer kept: the plan costs ") + cost +
                                                         (faster ? "" : " (taken for fewest_bytes)")});
        } else {
            plan.explanations.push_back(
                {h.split_group[0], h.root,
                 std::string("column sums not computed in this row kernel's blocks (inner-outer): the plan would cost ") +
                     cost + "; --enable fewest_bytes takes it"});
        }
    }
    if (plan.kernels.size() > 1)
        plan.explanations.push_back(
            {std::to_string(plan.kernels.size()) + " kernels", "",
             opt.horizontal ? "remaining kernels are separate launches: horizontal fusion merges independent 1-D "
                              "kernels, stage by stage (at most " +
                                  std::to_string(kMaxHorizontalRoots) +
                                  " per launch, for the kernel-parameter limit) and the split-K launches of "
                                  "reductions over the same points, not other kernels so far"
                            : "horizontal fusion is disabled by option"});
    return plan;
}

}  // namespace solder::autosched
