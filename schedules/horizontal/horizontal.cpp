#include "schedules/horizontal/horizontal.h"

#include "autosched/model/pipeline_funcs.h"

#include <algorithm>
#include <set>

#include "autosched/model/kernel_leaves.h"
#include "schedules/horizontal/horizontal_schedule.h"
#include "schedules/pointwise/pointwise_schedule.h"

namespace solder::autosched {

namespace {

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

// A sibling candidate: a vectorized pointwise kernel over two dims or more (GPU), pure, alone in
// its launch.
bool sibling_candidate(const FuncGraph &g, const FuncNode &n, const KernelPlan &k) {
    const PointwiseParams *p = k.get<PointwiseParams>();
    if (!p) return false;
    // Or a point per thread in tiles of several rows (a root computing reductions at its points,
    // schedule_pointwise_kernel), where the kernel's layout is that alone: no reduction it computes
    // reads another (those are placed at the thread's point by the kernel's own apply).
    bool tiles = p->vector_width == 1 && !p->flat && p->serial_dim < 0 && p->transposed_source.empty() &&
                 p->register_members.empty() && !p->register_root && p->root_unroll.empty() &&
                 p->refined_members.empty();
    std::set<int> in_kernel;
    for (auto &name : k.funcs) in_kernel.insert(g.find(name));
    for (int m : in_kernel) {
        if (!tiles || m < 0 || g.nodes[size_t(m)].updates == 0) continue;
        for (int e : g.nodes[size_t(m)].in_edges) {
            const int q = g.edges[size_t(e)].producer;
            tiles = tiles && (q == m || !in_kernel.count(q) || g.nodes[size_t(q)].updates == 0);
        }
    }
    // (Halide fuses no Func with specializations: neither the author's nor an unrolled dim's branch.)
    // Only pipeline outputs, whose regions at run time are their buffers (tested at sizes apart,
    // from the same origin: UserPipelines.SiblingGradientsLaunchTogether). A Func that other
    // kernels read beyond the region of the output it was launched with (through repeat_image:
    // from row 0, the output's window from row 5) was left unwritten past the output's rows
    // (random user seed 30 on OpenCL; with a hand schedule, under each of Halide's loop
    // alignments).
    return n.is_output && (p->vector_width > 1 || tiles) && n.dims.size() >= 2 && n.updates == 0 && !k.split &&
           k.with.empty() && k.side.empty() && p->unroll_dim < 0 && !has_specializations(n.function);
}

bool same_shape(const FuncNode &a, const KernelPlan &ka, const FuncNode &b, const KernelPlan &kb) {
    const PointwiseParams *p = ka.get<PointwiseParams>(), *q = kb.get<PointwiseParams>();
    return a.dims == b.dims && same_region(a.region, b.region) && p->vector_width == q->vector_width &&
           p->threads_x == q->threads_x && p->threads_y == q->threads_y && p->unroll_rows == q->unroll_rows;
}

// The first reduction kernel `k` computes besides its root that only the generic template could
// take alone (FuncNode::generic: Halide cannot split it, a scan, ...), whose RDom each of its
// threads then walks serially; empty where there is none.
std::string walked_fused_reduction(const FuncGraph &g, const KernelPlan &k) {
    for (auto &name : k.funcs) {
        const int m = g.find(name);
        if (name != k.root && m >= 0 && g.nodes[size_t(m)].updates > 0 && !g.nodes[size_t(m)].generic.empty())
            return name;
    }
    return "";
}

}  // namespace

void merge_siblings(const FuncGraph &g, const std::vector<std::set<int>> &deps,
                    const std::map<int, KernelChoice> &choice, Plan &plan, std::vector<int> &kernel_root) {
    std::vector<std::vector<size_t>> groups;   // kernel indices, the first one's root leading
    std::vector<std::map<int, Region>> reads;  // each group's leaves so far
    for (size_t i = 0; i < plan.kernels.size(); i++) {
        const int r = kernel_root[i];
        const FuncNode &n = g.nodes[size_t(r)];
        if (!sibling_candidate(g, n, plan.kernels[i])) continue;
        const auto own = kernel_leaves(g, r, choice.at(r).members);
        bool placed = false;
        for (size_t gi = 0; gi < groups.size() && !placed; gi++) {
            auto &grp = groups[gi];
            const size_t first = grp[0];
            const int r0 = kernel_root[first];
            if (grp.size() >= kMaxSiblings || !same_shape(g.nodes[size_t(r0)], plan.kernels[first], n, plan.kernels[i]))
                continue;
            bool ok = true;
            for (size_t m : grp)
                ok = ok && !deps[size_t(r)].count(kernel_root[m]) && !deps[size_t(kernel_root[m])].count(r);
            // Only kernels that read something in common: launched together, each shared input is
            // read from DRAM once (the other kernel's loads of it hit the cache).
            bool shares = false;
            for (auto &[leaf, region] : own) shares = shares || reads[gi].count(leaf) > 0;
            if (!ok || !shares) continue;
            grp.push_back(i);
            for (auto &[leaf, region] : own) merge_leaf(reads[gi], leaf, region);
            placed = true;
        }
        if (!placed) groups.push_back({i}), reads.push_back(own);
    }
    std::set<size_t> drop;
    for (size_t gi = 0; gi < groups.size(); gi++) {
        const auto &grp = groups[gi];
        if (grp.size() < 2) continue;
        KernelPlan &k = plan.kernels[grp[0]];
        std::string names;
        for (size_t i = 1; i < grp.size(); i++) {
            const KernelPlan &o = plan.kernels[grp[i]];
            k.with.push_back(o.root);
            k.funcs.insert(k.funcs.end(), o.funcs.begin(), o.funcs.end());
            k.outputs.insert(k.outputs.end(), o.outputs.begin(), o.outputs.end());
            k.bytes_written += o.bytes_written;
            names += (i > 1 ? ", " : "") + o.root;
            drop.insert(grp[i]);
        }
        k.bytes_read = leaf_bytes(g, reads[gi]);
        plan.explanations.push_back({k.root, names,
                                     "launched together: pointwise kernels over the same points that read the same "
                                     "inputs, each thread computing its points of every root (the shared inputs read "
                                     "once)"});
    }
    drop_kernels(plan, kernel_root, drop);
}

void merge_horizontal(const FuncGraph &g, const std::vector<bool> &root, const std::vector<std::set<int>> &deps,
                      const std::map<int, KernelChoice> &choice, Plan &plan, std::vector<int> &kernel_root) {
    const int N = int(g.nodes.size());
    std::vector<std::vector<int>> hgroups;
    std::vector<bool> closed;  // per group: launched alone
    for (int r = 0; r < N; r++) {
        if (!root[r]) continue;
        const FuncNode &n = g.nodes[r];
        // (Halide fuses no Func that has specializations with another: compute_with.)
        if (choice.at(r).kind != TemplateKind::Pointwise || n.dims.size() != 1 || !stages_over_pure_var(n) ||
            has_specializations(n.function))
            continue;
        // A kernel that launches split-K partials keeps its plan's split-K fields only as the first
        // of its group: it starts one.
        const KernelPlan &own =
            plan.kernels[size_t(std::find(kernel_root.begin(), kernel_root.end(), r) - kernel_root.begin())];
        // A kernel with side outputs launches alone, and so does one whose threads walk fused
        // reductions' RDoms: its block size and unrolled walks are its own (the pointwise
        // template's), where the horizontal layout would give it blocks of 256 threads and walks a
        // step at a time. Measured on the H100, a user's Kahan sums along each of 4096 rows of 8192
        // launched with its plain row sums took 1114.7 us. (Their groups stay closed; a split-K
        // kernel's group takes later kernels.)
        const std::string walked = walked_fused_reduction(g, own);
        const bool alone = !own.side.empty() || !walked.empty();
        if (!walked.empty())
            plan.explanations.push_back({n.name, "",
                                         "launched alone, not with other 1-D kernels: its threads walk " + walked +
                                             "'s RDom, in blocks sized for those walks and with their steps unrolled"});
        if ((own.split && own.split->launched_with.empty()) || alone) {
            hgroups.push_back({r});
            closed.push_back(alone);
            continue;
        }
        bool placed = false;
        for (size_t gi = 0; gi < hgroups.size() && !placed; gi++) {
            auto &hg = hgroups[gi];
            if (closed[gi] || hg.size() >= kMaxHorizontalRoots) continue;
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
            }
        }
        if (!placed) hgroups.push_back({r}), closed.push_back(false);
    }
    std::set<size_t> drop;
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
            drop.insert(size_t(ki));
        }
    }
    drop_kernels(plan, kernel_root, drop);
}

bool sibling_kernel(const KernelPlan &k, size_t root_dims) {
    return !k.with.empty() && k.get<PointwiseParams>() && root_dims >= 2;
}

void apply_horizontal(ApplyContext &c, const KernelPlan &k) {
    if (sibling_kernel(k, size_t(c.get(k.root).dimensions()))) {
        const PointwiseParams *p = k.get<PointwiseParams>();
        std::vector<Halide::Func> roots{c.get(k.root)};
        for (auto &name : k.with) roots.push_back(c.get(name));
        schedule_pointwise_siblings(c.w, roots, p->vector_width, c.target, p->threads_x, p->threads_y, p->unroll_rows);
        return;
    }
    std::vector<Halide::Func> roots{c.get(k.root)};
    std::vector<bool> adds_partials{c.split.count(k.root) > 0};
    for (auto &name : k.with) {
        roots.push_back(c.get(name));
        adds_partials.push_back(c.split.count(name) > 0);
    }
    schedule_horizontal_1d(c.w, roots, c.target, adds_partials);
}

}  // namespace solder::autosched
