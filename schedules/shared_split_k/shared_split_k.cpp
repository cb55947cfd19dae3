#include "schedules/shared_split_k/shared_split_k.h"

#include <algorithm>
#include <optional>

#include "autosched/model/cost_model.h"
#include "autosched/model/kernel_leaves.h"
#include "autosched/model/reduction_domain.h"
#include "schedules/split_k/split_k_plan.h"

namespace solder::autosched {

namespace {

struct Candidate {
    int kernel = -1;           // index into plan.kernels
    int root = -1, func = -1;  // the kernel's root and its split reduction (nodes)
    ReductionDomain domain;
    std::vector<Range64> ranges;  // per domain position: the points it walks
};

std::optional<Candidate> candidate(const FuncGraph &g, const Plan &plan, const std::vector<int> &kernel_root, int i) {
    const KernelPlan &k = plan.kernels[size_t(i)];
    if (!k.split) return std::nullopt;
    Candidate c;
    c.kernel = i;
    c.root = kernel_root[size_t(i)];
    c.func = g.find(k.split->func);
    auto d = domain_points(g, c.func);
    if (!d) return std::nullopt;
    c.domain = d->domain;
    c.ranges = d->ranges;
    return c;
}

// Every reduced position's bounds are constants.
bool constant_bounds(const ReductionDomain &d) {
    for (size_t p = 0; p < d.reduced.size(); p++)
        if (d.reduced[p] &&
            !(Halide::Internal::is_const(d.rvar_min[p]) && Halide::Internal::is_const(d.rvar_extent[p])))
            return false;
    return true;
}

// The same points at the estimates, and at every run-time size along the positions both reduce.
// Only over RDoms of constant bounds: measured on the H100, layernorm_bwd's two column sums down
// a run-time number of rows took 229 us sharing their launches against 159 + 64 us apart (each
// walk then guarded, or partitioned, at every slice; the pair reads 134 MB less and still loses).
bool same_points(const Candidate &a, const Candidate &b) {
    return constant_bounds(a.domain) && constant_bounds(b.domain) && same_region(a.ranges, b.ranges) &&
           same_rvar_bounds(a.domain, b.domain);
}

// The walk: the longest dim every member reduces (never position 0: the threads' dim); -1: none.
int walk_of(const std::vector<Candidate> &grp) {
    int walk = -1;
    for (size_t p = 1; p < grp[0].ranges.size(); p++) {
        bool all = true;
        for (auto &m : grp) all = all && m.domain.reduced[p];
        if (all && (walk < 0 || grp[0].ranges[p].extent() > grp[0].ranges[size_t(walk)].extent())) walk = int(p);
    }
    return walk;
}

bool loop_names(const std::vector<Candidate> &grp, int walk) {
    std::vector<ReductionDomain> d;
    for (auto &m : grp) d.push_back(m.domain);
    return shared_position_names(d, walk).has_value();
}

std::string shape_text(const std::vector<Range64> &ranges) {
    std::string s;
    for (size_t p = ranges.size(); p-- > 0;) s += (s.empty() ? "" : "x") + std::to_string(ranges[p].extent());
    return s;
}

}  // namespace

void share_split_k(const FuncGraph &g, const PlannerOptions &opt, const std::map<int, KernelChoice> &choice,
                   const std::vector<std::set<int>> &deps, const std::vector<int> &kernel_root, Plan &plan) {
    if (!opt.gpu || !opt.horizontal) return;
    const CostModel cost(opt.device);
    // First fit, in kernel order: a reduction joins the first group over the same points whose
    // kernels neither depend on its kernel nor it on theirs (their partials launch together).
    std::vector<std::vector<Candidate>> groups;
    for (int i = 0; i < int(plan.kernels.size()); i++) {
        auto c = candidate(g, plan, kernel_root, i);
        if (!c) continue;
        bool placed = false;
        std::string why;  // why a group over the same points did not take it
        for (auto &grp : groups) {
            if (!same_points(grp[0], *c)) continue;
            bool independent = true;
            for (auto &m : grp)
                independent =
                    independent && !deps[size_t(m.root)].count(c->root) && !deps[size_t(c->root)].count(m.root);
            if (!independent) {
                if (why.empty()) why = "one kernel depends on the other, so their partials cannot launch together";
                continue;
            }
            auto with = grp;
            with.push_back(*c);
            const int walk = walk_of(with);
            if (walk <= 0) {
                if (why.empty()) why = "they reduce no common dim to cut into slices";
                continue;
            }
            if (!loop_names(with, walk)) {
                if (why.empty())
                    why = "their loops cannot share names (compute_with fuses loops by name: the rows' RVars or the "
                          "kept dims are named differently)";
                continue;
            }
            grp.push_back(*c);
            placed = true;
            break;
        }
        if (!placed && !why.empty()) {
            // Same points as an earlier split reduction, but launched apart: say why.
            for (auto &grp : groups)
                if (same_points(grp[0], *c)) {
                    plan.explanations.push_back({g.nodes[size_t(grp[0].func)].name, g.nodes[size_t(c->func)].name,
                                                 "split-K partials not shared: " + why});
                    break;
                }
        }
        if (!placed) groups.push_back({*c});
    }
    for (auto &grp : groups) {
        if (grp.size() < 2) continue;
        const size_t n = grp[0].ranges.size();
        const int walk = walk_of(grp);
        if (walk <= 0 || !loop_names(grp, walk)) continue;
        const int64_t steps = grp[0].ranges[size_t(walk)].extent();
        int64_t others = 1;
        for (size_t p = 1; p < n; p++)
            if (int(p) != walk) others *= grp[0].ranges[p].extent();
        // Each thread takes two neighbours along position 0 where that divides it (one 4-byte load
        // per bf16 input and point). Measured on the H100 for nvfuser_2146's four column sums:
        // 131 us with one, 107 with two; four needed 72 registers (over Halide's cap of 64) and
        // were no faster.
        // Not where the sizes are known only at run time: the pairs' tails are then guarded, and a
        // guarded pair's partials are loaded and stored at every step of the walk instead of kept in
        // registers (layernorm_bwd's two column sums: 128 stores per thread in the unrolled walk).
        const int64_t width = grp[0].ranges[0].extent();
        const int vec = g.fixed_sizes() && width % 2 == 0 && width >= kSplitThreads ? 2 : 1;
        const int64_t base = ((width + kSplitThreads * vec - 1) / (kSplitThreads * vec)) * others;

        // What the shared launches read: every member's leaves, each region once.
        std::map<int, Region> shared_leaves;
        double flops = 0;
        int64_t partial_bytes_per_slice = 0;  // all members' partials of one slice
        std::vector<std::string> names;
        for (auto &m : grp) {
            const KernelChoice &kc = choice.at(m.root);
            std::vector<bool> inside(g.nodes.size(), false);
            for (int x : kc.members) inside[size_t(x)] = true;
            add_leaves(g, m.func, g.nodes[size_t(m.func)].region, inside, -1, shared_leaves);
            partial_bytes_per_slice += width * others * g.nodes[size_t(m.func)].elem_bytes;
            flops += kc.flops;
            names.push_back(g.nodes[size_t(m.func)].name);
        }
        const int64_t shared_read = leaf_bytes(g, shared_leaves);
        // Slices: the fewest modelled microseconds for the shared launches (more slices, more
        // blocks to fill the GPU) plus the roots that add the partials (more slices, more to add,
        // by few blocks: measured, 8 slices instead of 4 cost nvfuser_2146's roots 28 us). Slices
        // that do not divide the walk guard every step, and then the members' loads of one point
        // are not merged (143 loads against 67 in nvfuser's kernel): they count 10% more.
        int64_t k = 0;
        double best = 0;
        for (int64_t e = 2; e <= steps / kMinSliceRows; e++) {
            const int64_t r = (steps + e - 1) / e;
            if ((steps + r - 1) / r != e) continue;  // the same slices as fewer
            double t = cost.kernel_us(shared_read + e * partial_bytes_per_slice, flops, base * e);
            for (auto &m : grp)
                t += cost.kernel_us(e * width * others * g.nodes[size_t(m.func)].elem_bytes +
                                        g.nodes[size_t(m.root)].bytes(),
                                    0, plan.kernels[size_t(m.kernel)].blocks);
            if (steps % e != 0) t *= 1.1;
            if (k == 0 || t < best * (1 - 1e-9)) k = e, best = t;
        }
        if (k < 2) continue;
        const int64_t rows = (steps + k - 1) / k;
        const int64_t partial_points = k * width * others;
        const int64_t all_partials = k * partial_bytes_per_slice;
        const int64_t split_blocks = base * k;
        for (size_t i = 0; i < grp.size(); i++) {
            const Candidate &m = grp[i];
            KernelPlan &kp = plan.kernels[size_t(m.kernel)];
            const FuncNode &O = g.nodes[size_t(m.root)], &R = g.nodes[size_t(m.func)];
            const int64_t own_partials = partial_points * R.elem_bytes;
            // The root's own reads: its leaves other than through the reduction, and the partials.
            int64_t root_read = own_partials;
            if (m.root != m.func) {
                std::vector<bool> inside(g.nodes.size(), false);
                for (int x : choice.at(m.root).members) inside[size_t(x)] = x != m.func;
                std::map<int, Region> leaves;
                add_leaves(g, m.root, O.region, inside, m.func, leaves);
                root_read += leaf_bytes(g, leaves);
            }
            const double root_us = cost.kernel_us(own_partials + O.bytes(), 0, kp.blocks);
            SplitK &sk = *kp.split;
            sk.slices = k;
            sk.vector = vec;
            sk.dim = walk;
            sk.rows = rows;
            if (i == 0) {
                sk.group = names;
                sk.blocks = split_blocks;
                kp.bytes_read = root_read + shared_read;
                kp.bytes_written = O.bytes() + 2 * all_partials;  // zeroed, then summed
                kp.est_us = cost.kernel_us(all_partials, 0, split_blocks) +
                            cost.kernel_us(shared_read + all_partials, flops, split_blocks) + root_us;
            } else {
                sk.launched_with = names[0];
                sk.blocks = 0;
                kp.launches -= 2;
                kp.bytes_read = root_read;
                kp.bytes_written = O.bytes();
                kp.est_us = root_us;
            }
            for (auto &mt : plan.materialized) {
                if (mt.func != sk.partials) continue;
                mt.shape = {k};
                for (size_t p = n; p-- > 0;)
                    if (int(p) != walk) mt.shape.push_back(m.ranges[p].extent());
                mt.bytes = own_partials;
            }
        }
        std::string rest;
        for (size_t i = 1; i < names.size(); i++) rest += (i > 1 ? ", " : "") + names[i];
        plan.explanations.push_back(
            {names[0], "",
             "split-K shared: " + rest + " summed in the same launches (they reduce over the same " +
                 shape_text(grp[0].ranges) + " points: read once, not " + std::to_string(grp.size()) + " times)"});
    }
    plan.total_bytes = 0;
    for (auto &k : plan.kernels) plan.total_bytes += k.bytes_read + k.bytes_written;
}

}  // namespace solder::autosched
