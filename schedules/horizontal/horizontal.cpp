#include "schedules/horizontal/horizontal.h"

#include <algorithm>

#include "schedules/horizontal/horizontal_schedule.h"

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

}  // namespace

void merge_horizontal(const FuncGraph &g, const std::vector<bool> &root, const std::vector<std::set<int>> &deps,
                      const std::map<int, KernelChoice> &choice, Plan &plan, std::vector<int> &kernel_root) {
    const int N = int(g.nodes.size());
    std::vector<std::vector<int>> hgroups;
    for (int r = 0; r < N; r++) {
        if (!root[r]) continue;
        const FuncNode &n = g.nodes[r];
        if (choice.at(r).kind != TemplateKind::Pointwise || n.dims.size() != 1 || !stages_over_pure_var(n)) continue;
        // A kernel that launches split-K partials keeps its plan's split-K fields only as the first
        // of its group: it starts one.
        const KernelPlan &own =
            plan.kernels[size_t(std::find(kernel_root.begin(), kernel_root.end(), r) - kernel_root.begin())];
        if (own.split && own.split->launched_with.empty()) {
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

void apply_horizontal(ApplyContext &c, const KernelPlan &k) {
    std::vector<Halide::Func> roots{c.get(k.root)};
    std::vector<bool> adds_partials{c.split.count(k.root) > 0};
    for (auto &name : k.with) {
        roots.push_back(c.get(name));
        adds_partials.push_back(c.split.count(name) > 0);
    }
    schedule_horizontal_1d(c.w, roots, c.target, adds_partials);
}

}  // namespace solder::autosched
