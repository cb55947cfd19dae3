// The search. Kernel roots start as the outputs and the producers of data-dependent accesses;
// every other Func is inlined (recomputed) or computed at its kernel's blocks. Roots are added, one
// reason at a time, until every kernel can be built: a reduction used by several kernels, a
// reduction whose per-block footprint exceeds shared memory, a Func the options keep out. For each
// kernel the block shape (how many inner dims one block owns) is chosen by the cost model. The
// result is deterministic: nodes are visited in the graph's fixed topological order.
#include "autosched/planner.h"

#include <algorithm>
#include <map>
#include <sstream>

namespace solder::autosched {

namespace {

std::string kb(int64_t b) { return std::to_string((b + 1023) / 1024) + " KB"; }

struct KernelChoice {
    std::string template_name = "pointwise";
    int inner_dims = 1;
    int64_t blocks = 1;
    int64_t bytes_read = 0;
    double flops = 0;
    std::vector<int> members;  // non-root nodes computed in this kernel
    bool ok = true;
    int offender = -1;         // reduction that did not fit, if !ok
    int64_t offender_bytes = 0;
};

// Region of a root covered by one block that owns its `k` innermost dims.
Region block_region(const Region &r, int k) {
    Region b = r;
    for (size_t d = size_t(k); d < b.size(); d++) b[d].max = b[d].min;
    return b;
}

int64_t blocks_for(const Region &r, int k) {
    int64_t n = 1;
    for (size_t d = size_t(k); d < r.size(); d++) n *= r[d].extent();
    return n;
}

// Bytes a kernel reads from global memory: each leaf (input or other root) it touches, per block
// times blocks; a leaf whose whole footprint fits in half of L2 is served from L2 after its first
// read and counted once.
void cost_reads(const FuncGraph &g, const PlannerOptions &opt, int root, const std::vector<bool> &inside,
                const std::vector<Region> &whole, const std::vector<Region> &per_block, int64_t blocks,
                KernelChoice &kc) {
    kc.bytes_read = 0;
    kc.flops = 0;
    for (size_t p = 0; p < g.nodes.size(); p++) {
        if (per_block[p].empty()) continue;
        const FuncNode &n = g.nodes[p];
        bool leaf = int(p) != root && !inside[p];
        if (leaf) {
            int64_t once = region_points(whole[p]) * n.elem_bytes;
            int64_t again = region_points(per_block[p]) * n.elem_bytes * blocks;
            kc.bytes_read += once <= opt.device.l2_bytes / 2 ? once : std::max(once, again);
        } else {
            kc.flops += double(n.ops_per_point) * double(region_points(per_block[p])) * double(blocks) +
                        double(n.reduction_points) * 2.0 * double(region_points(per_block[p])) * double(blocks) /
                            std::max<int64_t>(1, n.points());
        }
    }
}

bool has_stencil_member(const FuncGraph &g, int root, const std::vector<bool> &inside) {
    for (auto &e : g.edges)
        if (e.access == Access::Stencil && inside[e.producer] && (inside[e.consumer] || e.consumer == root)) return true;
    return false;
}

KernelChoice choose_kernel(const FuncGraph &g, const PlannerOptions &opt, int root, const std::vector<int> &members) {
    std::vector<bool> inside(g.nodes.size(), false);
    for (int m : members) inside[m] = true;
    const FuncNode &O = g.nodes[root];
    int rank = int(O.dims.size());
    bool reduction_member = false;
    for (int m : members) reduction_member |= g.nodes[m].is_reduction();

    KernelChoice best;
    best.members = members;
    if (rank == 0) {
        best.template_name = "single";
        auto whole = g.regions_for(root, O.region, inside);
        cost_reads(g, opt, root, inside, whole, whole, 1, best);
        return best;
    }
    if (!reduction_member || O.is_reduction()) {
        best.template_name = has_stencil_member(g, root, inside) && rank >= 2 ? "stencil_tile" : "pointwise";
        // Blocks tile the innermost dim by 256 (pointwise) or 32x8 tiles (stencil).
        Region blk = O.region;
        int64_t blocks = 1;
        if (best.template_name == "stencil_tile") {
            blk[0].max = blk[0].min + std::min<int64_t>(32, blk[0].extent()) - 1;
            blk[1].max = blk[1].min + std::min<int64_t>(8, blk[1].extent()) - 1;
            blocks = ((O.region[0].extent() + 31) / 32) * ((O.region[1].extent() + 7) / 8) * blocks_for(O.region, 2);
            for (int d = 2; d < rank; d++) blk[d].max = blk[d].min;
        } else {
            for (int d = 1; d < rank; d++) blk[d].max = blk[d].min;
            blocks = ((O.region[0].extent() + 255) / 256) * blocks_for(O.region, 1);
        }
        best.blocks = blocks;
        // Reads are costed per row of the innermost dim: its 256-wide blocks tile it exactly.
        cost_reads(g, opt, root, inside, g.regions_for(root, O.region, inside), g.regions_for(root, blk, inside),
                   best.template_name == "pointwise" ? blocks_for(O.region, 1) : blocks, best);
        return best;
    }
    // Row template: a block owns the k innermost dims; fused reductions live in shared memory.
    const auto whole = g.regions_for(root, O.region, inside);
    bool found = false;
    for (int k = 1; k <= rank; k++) {
        // A block owning every dim only for 1-D roots that are small (the template has no loop to
        // keep outer dims inside one block).
        if (k == rank && (rank > 1 || O.points() > 65536)) break;
        KernelChoice kc;
        kc.template_name = "row";
        kc.inner_dims = k;
        kc.members = members;
        kc.blocks = blocks_for(O.region, k);
        Region blk = block_region(O.region, k);
        auto per_block = g.regions_for(root, blk, inside);
        int64_t shared = 0;
        for (int m : members)
            if (g.nodes[m].is_reduction()) {
                int64_t b = region_points(per_block[m]) * g.nodes[m].elem_bytes;
                shared += b;
                if (b > kc.offender_bytes) kc.offender = m, kc.offender_bytes = b;
            }
        kc.ok = shared <= opt.device.shared_memory_bytes;
        if (!kc.ok) {
            if (!found) best = kc;  // keep the offender of the smallest block shape
            continue;
        }
        cost_reads(g, opt, root, inside, whole, per_block, kc.blocks, kc);
        // Fewest bytes first; among equals, least recompute (a block that owns more dims computes
        // shared reductions once instead of once per inner block).
        bool better = !found || kc.bytes_read < best.bytes_read ||
                      (kc.bytes_read == best.bytes_read && kc.flops < best.flops);
        if (better) best = kc, found = true;
    }
    return best;
}

// Kernel parameters are limited (4 KB for CUDA): each fused root passes two buffers and a few
// bounds, so a horizontal group stays under this many roots.
constexpr size_t kMaxHorizontalRoots = 100;

// Merges independent 1-D pointwise kernels into one launch (Halide compute_with). A kernel may
// join a group only if no kernel of the group depends on it, or it on them, through any chain.
void merge_horizontal(const FuncGraph &g, const std::vector<bool> &root, const std::vector<std::set<int>> &groups,
                      const std::map<int, KernelChoice> &choice, Plan &plan, std::vector<int> &kernel_root) {
    const int N = int(g.nodes.size());
    std::vector<std::set<int>> deps(N);  // transitive: roots whose kernels must finish first
    for (int r = 0; r < N; r++) {
        if (!root[r]) continue;
        for (auto &e : g.edges) {
            int q = e.producer;
            if (!root[q] || q == r || !(e.consumer == r || (!root[e.consumer] && groups[e.consumer].count(r)))) continue;
            deps[r].insert(q);
            deps[r].insert(deps[q].begin(), deps[q].end());
        }
    }
    std::vector<std::vector<int>> hgroups;
    for (int r = 0; r < N; r++) {
        if (!root[r]) continue;
        const FuncNode &n = g.nodes[r];
        if (choice.at(r).template_name != "pointwise" || n.dims.size() != 1 || n.updates > 0) continue;
        bool placed = false;
        for (auto &hg : hgroups) {
            if (hg.size() >= kMaxHorizontalRoots) continue;
            bool ok = true;
            for (int m : hg) ok = ok && !deps[r].count(m) && !deps[m].count(r);
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
    std::vector<bool> root(N, false);
    std::map<int, std::string> why;  // why a non-output Func became a root
    for (int i = 0; i < N; i++) {
        const FuncNode &n = g.nodes[i];
        if (n.is_input) continue;
        if (n.is_output) root[i] = true;
        if (opt.keep_unfused.count(n.name)) root[i] = true, why[i] = "kept out of fusion by the keep_unfused option";
        for (int e : n.out_edges)
            if (g.edges[e].access == Access::DataDependent)
                root[i] = true, why[i] = "read with a data-dependent index by " + g.nodes[g.edges[e].consumer].name;
    }

    std::vector<std::set<int>> groups(N);
    std::map<int, KernelChoice> choice;
    for (int iter = 0; iter <= N; iter++) {
        // Which kernels each Func is computed in: its own if a root, else its consumers'.
        for (int i = N - 1; i >= 0; i--) {
            groups[i].clear();
            if (g.nodes[i].is_input) continue;
            if (root[i]) {
                groups[i] = {i};
                continue;
            }
            for (int e : g.nodes[i].out_edges) {
                const auto &cg = groups[g.edges[e].consumer];
                groups[i].insert(cg.begin(), cg.end());
            }
        }
        int promote = -1;
        for (int i = N - 1; i >= 0 && promote < 0; i--) {
            const FuncNode &n = g.nodes[i];
            if (n.is_input || root[i]) continue;
            std::string names;
            for (int k : groups[i]) names += (names.empty() ? "" : ", ") + g.nodes[k].name;
            if (n.is_reduction() && groups[i].size() > 1)
                promote = i, why[i] = "a reduction used by several kernels (" + names + ") is computed once and stored";
            else if (n.is_reduction() && !opt.compute_at)
                promote = i, why[i] = "compute_at is disabled: a reduction cannot be fused into its consumer";
            else if (!opt.remat && groups[i].size() > 1)
                promote = i, why[i] = "used by several kernels (" + names + ") and recompute (remat) is disabled";
        }
        if (promote < 0) {
            choice.clear();
            for (int r = 0; r < N && promote < 0; r++) {
                if (!root[r]) continue;
                std::vector<int> members;
                for (int i = 0; i < N; i++)
                    if (!root[i] && !g.nodes[i].is_input && groups[i].count(r)) members.push_back(i);
                // A reduction root's own producing reductions are stored, not nested.
                if (g.nodes[r].is_reduction())
                    for (int m : members)
                        if (g.nodes[m].is_reduction()) {
                            promote = m;
                            why[m] = "feeds the reduction " + g.nodes[r].name +
                                     ", and Solder does not nest a reduction inside another reduction's kernel yet";
                            break;
                        }
                if (promote >= 0) break;
                KernelChoice kc = choose_kernel(g, opt, r, members);
                if (!kc.ok) {
                    promote = kc.offender;
                    why[promote] = "its per-block footprint in " + g.nodes[r].name + "'s kernel (" +
                                   kb(kc.offender_bytes) + ") exceeds shared memory (" +
                                   kb(opt.device.shared_memory_bytes) + ")";
                    break;
                }
                choice[r] = kc;
            }
        }
        if (promote < 0) break;
        root[promote] = true;
    }

    // Build the plan.
    Plan plan;
    plan.app = app;
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
            bool stencil_out = false;
            for (int e : n.out_edges) stencil_out |= g.edges[e].access == Access::Stencil;
            // Computed once per block where the anchor's template has blocks to hold it: reductions
            // in row kernels, stencil producers in tiled kernels. Anything else is recomputed.
            const std::string &tmpl = choice[anchor].template_name;
            bool at_block = groups[i].size() == 1 && ((n.is_reduction() && tmpl == "row") ||
                                                      (stencil_out && opt.compute_at && tmpl == "stencil_tile"));
            fp.placement = at_block ? Placement::ComputeAtBlock : Placement::Inline;
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
        k.blocks = kc.blocks;
        k.bytes_read = kc.bytes_read;
        k.bytes_written = O.bytes();
        k.est_us = std::max(double(k.bytes_read + k.bytes_written) / opt.device.bandwidth_bytes_per_s,
                            kc.flops / opt.device.flops_per_s) * 1e6 + opt.device.launch_us;
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
    if (opt.horizontal) merge_horizontal(g, root, groups, choice, plan, kernel_root);
    // Recost merged kernels (one launch each) and number them in order.
    plan.est_us = 0;
    for (size_t i = 0; i < plan.kernels.size(); i++) {
        KernelPlan &k = plan.kernels[i];
        if (!k.with.empty()) {
            k.name = "k" + std::to_string(i) + "_" + k.root + "_horizontal";
            k.est_us = double(k.bytes_read + k.bytes_written) / opt.device.bandwidth_bytes_per_s * 1e6 +
                       opt.device.launch_us;
        } else {
            k.name = "k" + std::to_string(i) + "_" + k.root;
        }
        plan.est_us += k.est_us;
    }
    if (plan.kernels.size() > 1)
        plan.explanations.push_back(
            {std::to_string(plan.kernels.size()) + " kernels", "",
             opt.horizontal ? "remaining kernels are separate launches: horizontal fusion merges only independent "
                              "1-D pointwise kernels so far (and at most " +
                                  std::to_string(kMaxHorizontalRoots) + " per launch, for the kernel-parameter limit)"
                            : "horizontal fusion is disabled by option"});
    return plan;
}

}  // namespace solder::autosched
