#include "schedules/row/side_outputs.h"

#include <vector>

#include "autosched/model/block_regions.h"
#include "autosched/model/kernel_leaves.h"
#include "autosched/model/pipeline_funcs.h"
#include "schedules/pointwise/pointwise.h"
#include "schedules/row/row_blocks.h"

namespace solder::autosched {

std::set<int> side_output_candidates(const FuncGraph &g, const PlannerOptions &opt) {
    std::set<int> out;
    if (!opt.gpu || !opt.compute_at || !opt.side_outputs) return out;
    for (size_t i = 0; i < g.nodes.size(); i++) {
        const FuncNode &n = g.nodes[i];
        if (!n.is_output || n.is_input || n.out_edges.empty() || n.updates > 0 || n.dims.empty() ||
            !n.generic.empty() || has_specializations(n.function) || opt.keep_unfused.count(n.name) ||
            opt.keep_unfused.count(name_as_written(n.name)))
            continue;
        bool gathered = false;
        for (int e : n.out_edges) gathered |= g.edges[size_t(e)].access == Access::DataDependent;
        if (!gathered) out.insert(int(i));
    }
    return out;
}

namespace {

// Whether output S's dims are root R's from dim `first` on, by name (compute_with fuses loops by
// name) and extent: empty if so, else why not.
std::string same_dims_as(const FuncNode &S, const FuncNode &R, int first) {
    if (int(R.dims.size()) - first != int(S.dims.size()))
        return "its dims are not " + std::string(first > 0 ? "the rows of " : "those of ") + R.name + " (" +
               std::to_string(int(R.dims.size()) - first) + " dims)";
    for (size_t d = 0; d < S.dims.size(); d++) {
        const size_t rd = size_t(first) + d;
        if (S.dims[d] != R.dims[rd])
            return "its dim " + std::to_string(d) + " is named " + S.dims[d] + ", " + R.name + "'s " + R.dims[rd] +
                   " (Halide's compute_with fuses loops by name)";
        if (S.region[d].extent() != R.region[rd].extent())
            return "its extent in " + S.dims[d] + " differs from " + R.name + "'s";
    }
    return "";
}

}  // namespace

std::string needed_beyond_own_rows(const FuncGraph &g, int r, const KernelChoice &kc, int s) {
    const FuncNode &R = g.nodes[size_t(r)], &S = g.nodes[size_t(s)];
    const int inner = kc.inner_dims;
    const Region need = row_block_regions(g, r, kc)[size_t(s)];
    const Region rows = block_region(R.region, inner);
    for (size_t d = 0; d < S.dims.size(); d++)
        if (d >= need.size() || need[d].min != rows[size_t(inner) + d].min ||
            need[d].max != rows[size_t(inner) + d].max)
            return "one block of " + R.name + "'s kernel reads it beyond the block's own rows (in " + S.dims[d] + ")";
    return "";
}

namespace {

// Whether kernel `k` (root `s`) is a pointwise output kernel a row kernel may write beside its root.
bool row_sibling_candidate(const FuncGraph &g, const PlannerOptions &opt, int s, const KernelChoice &kc,
                           const KernelPlan &k) {
    const FuncNode &S = g.nodes[size_t(s)];
    if (kc.kind != TemplateKind::Pointwise || !S.is_output || !S.out_edges.empty() || S.updates > 0 ||
        S.dims.size() < 2 || kc.split_func >= 0 || !k.with.empty() || !k.side.empty() ||
        has_specializations(S.function) || opt.keep_unfused.count(S.name) ||
        opt.keep_unfused.count(name_as_written(S.name)))
        return false;
    const PointwiseParams *p = k.get<PointwiseParams>();
    if (!p || p->unroll_dim >= 0) return false;
    for (int m : kc.members)
        if (g.nodes[size_t(m)].updates > 0) return false;
    return true;
}

}  // namespace

void merge_row_siblings(const FuncGraph &g, const PlannerOptions &opt, const std::vector<std::set<int>> &deps,
                        const std::map<int, KernelChoice> &choice, const CostModel &cost, Plan &plan,
                        std::vector<int> &kernel_root) {
    if (!opt.gpu || !opt.side_outputs) return;
    std::set<size_t> drop;
    for (size_t i = 0; i < plan.kernels.size(); i++) {
        const int s = kernel_root[i];
        if (drop.count(i) || !row_sibling_candidate(g, opt, s, choice.at(s), plan.kernels[i])) continue;
        const FuncNode &S = g.nodes[size_t(s)];
        // (Every Func it computes inlined everywhere: none is computed per block of another kernel.)
        bool inlined = true;
        for (auto &fp : plan.funcs)
            for (int m : choice.at(s).members)
                inlined = inlined && (fp.func != g.nodes[size_t(m)].name || fp.placement == Placement::Inline);
        if (!inlined) continue;
        const auto own = kernel_leaves(g, s, choice.at(s).members);
        for (size_t j = 0; j < plan.kernels.size(); j++) {
            KernelPlan &k = plan.kernels[j];
            const int r = kernel_root[j];
            const auto it = choice.find(r);
            const RowParams *p = k.get<RowParams>();
            // (One row per block: the side output's rows are the block's. A row kernel planned with
            // several keeps them.)
            if (j == i || drop.count(j) || it == choice.end() || it->second.kind != TemplateKind::Row || !p ||
                p->rows_per_block != 1 || it->second.split_func >= 0 || !k.with.empty() ||
                g.nodes[size_t(r)].updates > 0 || deps[size_t(r)].count(s) || deps[size_t(s)].count(r) ||
                int(g.nodes[size_t(r)].dims.size()) <= p->inner_dims || !same_dims_as(S, g.nodes[size_t(r)], 0).empty())
                continue;
            // Every Func the block computes lies along the root's rows (a row's sum): a 0-d total
            // computed in each block (an image's mean under `in(x, y) - mean()`) came out wrong
            // with the sibling fused at the block loop (random user seed 5 on OpenCL).
            bool along_rows = true;
            for (auto &fp : plan.funcs)
                if (fp.anchor == k.root && fp.placement == Placement::ComputeAtBlock) {
                    const int m = g.find(fp.func);
                    along_rows = along_rows && m >= 0 && !g.nodes[size_t(m)].dims.empty();
                }
            if (!along_rows) continue;
            const auto theirs = kernel_leaves(g, r, it->second.members);
            std::map<int, Region> both = theirs;
            bool shares = false;
            for (auto &[leaf, region] : own) {
                shares = shares || theirs.count(leaf) > 0;
                merge_leaf(both, leaf, region);
            }
            if (!shares) continue;
            const int64_t read = leaf_bytes(g, both), before = leaf_bytes(g, theirs);
            k.side.push_back(SideOutput{S.name, {}});
            k.outputs.push_back(S.name);
            for (auto &f : plan.kernels[i].funcs)
                if (std::find(k.funcs.begin(), k.funcs.end(), f) == k.funcs.end()) k.funcs.push_back(f);
            k.bytes_read += read - before;  // (the merged boxes cover theirs: never negative)
            k.bytes_written += S.bytes();
            k.est_us += cost.stream_us(S.bytes() + read - before, 0);
            plan.explanations.push_back(
                {S.name, k.root,
                 "written by " + k.root +
                     "'s row kernel beside its root: an output over the same points that reads the same inputs, "
                     "computed by the block's threads after the row (the shared inputs read once)"});
            for (auto &fp : plan.funcs)
                if (fp.func == S.name) fp.anchor = k.root;
            drop.insert(i);
            break;
        }
    }
    drop_kernels(plan, kernel_root, drop);
}

std::string side_output_why_not(const FuncGraph &g, const std::vector<bool> &root,
                                const std::vector<std::set<int>> &groups, const std::map<int, KernelChoice> &choice,
                                int s, int *host) {
    const FuncNode &S = g.nodes[size_t(s)];
    const std::set<int> &kernels = groups[size_t(s)];
    if (kernels.size() != 1) return "it is computed in " + std::to_string(kernels.size()) + " kernels, not one";
    const int r = *kernels.begin();
    const FuncNode &R = g.nodes[size_t(r)];
    auto it = choice.find(r);
    if (it != choice.end() && it->second.kind == TemplateKind::Pointwise) {
        // Laid out as the root and fused at its thread loop: the same points, every Func of the
        // kernel inlined (recomputed where read), in the template's vector layout.
        const KernelChoice &kc = it->second;
        if (kc.split_func >= 0 || R.updates > 0) return R.name + "'s pointwise kernel has update stages or split-K";
        for (int m : kc.members)
            if (g.nodes[size_t(m)].is_reduction())
                return R.name + "'s pointwise kernel computes a reduction in its threads";
        if (pointwise_vector_width(R) <= 1) return R.name + "'s pointwise kernel takes no vector layout";
        const std::string why = same_dims_as(S, R, 0);
        if (why.empty()) *host = r;
        return why;
    }
    if (it == choice.end() || it->second.kind != TemplateKind::Row)
        return R.name + "'s kernel, where it is computed, is neither a row kernel nor a pointwise one";
    const KernelChoice &kc = it->second;
    if (kc.split_func >= 0) return R.name + "'s row kernel sums a reduction in split-K partials";
    const int inner = kc.inner_dims;
    if (std::string why = same_dims_as(S, R, inner); !why.empty()) return why;
    // Its readers in the kernel read it at the block's own rows: what a block writes of it, from
    // what the block computed, is what the block needed of it.
    if (std::string why = needed_beyond_own_rows(g, r, kc, s); !why.empty()) return why;
    // What it reads inside the kernel (through Funcs computed there), it reads at its own points:
    // the block computed those for its rows.
    std::vector<int> todo{s};
    std::set<int> seen{s};
    while (!todo.empty()) {
        const int c = todo.back();
        todo.pop_back();
        for (int e : g.nodes[size_t(c)].in_edges) {
            const FuncEdge &E = g.edges[size_t(e)];
            const int q = E.producer;
            if (g.nodes[size_t(q)].is_input || root[size_t(q)]) continue;
            if (E.access != Access::Pointwise && E.access != Access::Broadcast)
                return "it reads " + g.nodes[size_t(q)].name + " (computed in " + R.name + "'s kernel) by a " +
                       access_name(E.access) + " access, not at its own points";
            // (A reduction is computed per block, over what its rows need: its own reads are the
            // block's, not at this output's points.)
            if (seen.insert(q).second && !g.nodes[size_t(q)].is_reduction()) todo.push_back(q);
        }
    }
    *host = r;
    return "";
}

}  // namespace solder::autosched
