#include "schedules/inner_outer/inner_outer_plan.h"

#include <algorithm>
#include <optional>

#include "autosched/model/cost_model.h"
#include "autosched/model/kernel_leaves.h"
#include "schedules/row/row_blocks.h"

namespace solder::autosched {

namespace {

std::vector<bool> inside_of(const FuncGraph &g, const KernelChoice &kc, int skip = -1) {
    std::vector<bool> inside(g.nodes.size(), false);
    for (int x : kc.members) inside[size_t(x)] = x != skip;
    return inside;
}

// What kernel i reads apart from its split reduction's points (its root's leaves, the split
// reduction counted as read from its partials).
std::map<int, Region> root_leaves(const FuncGraph &g, const Plan &plan, const std::map<int, KernelChoice> &choice,
                                  const std::vector<int> &kernel_root, size_t i) {
    const int r = kernel_root[i];
    const int split = g.find(plan.kernels[i].split_func());
    std::map<int, Region> leaves;
    if (r == split) return leaves;
    add_leaves(g, r, g.nodes[size_t(r)].region, inside_of(g, choice.at(r), split), split, leaves);
    return leaves;
}

}  // namespace

int host_column_sums_in_rows(const FuncGraph &g, const PlannerOptions &opt, const std::map<int, KernelChoice> &choice,
                             const std::vector<std::set<int>> &deps, const std::vector<int> &kernel_root, Plan &plan) {
    if (!opt.gpu || !opt.horizontal) return -1;
    // The inner-outer kernel's blocks are large (all 1024 threads, the staged rows), so an SM holds
    // few at once, and within a block loading the rows, reducing them and summing the columns are
    // phases apart, with barriers between: CostModel::phased_kernel_us.
    const CostModel cost(opt.device);
    // Every buffer's extents must be constants: with extents known only at run time, Halide 21
    // bounded the fused group's staged rows by the whole batch (a block of 32 x 256 threads on
    // OpenCL, random seed 1 of the inner-outer family).
    bool fixed = true;
    for (auto &n : g.nodes)
        if (n.is_input || n.is_output) fixed = fixed && n.fixed_extents;
    // What each kernel reads apart from its split reduction, computed once when first asked
    // (several questions below ask it of every kernel; no kernel changes until one is hosted).
    std::vector<std::optional<std::map<int, Region>>> read_cache(plan.kernels.size());
    auto reads = [&](size_t k) -> const std::map<int, Region> & {
        if (!read_cache[k]) read_cache[k] = root_leaves(g, plan, choice, kernel_root, k);
        return *read_cache[k];
    };
    int hosted = -1;
    for (size_t oi = 0; oi < plan.kernels.size() && hosted < 0; oi++) {
        const KernelPlan &owner = plan.kernels[oi];
        if (!owner.split || owner.split->group.empty() || !owner.split->launched_with.empty()) continue;
        const std::vector<std::string> group_names = owner.split->group;  // (the owner's is cleared below)
        std::vector<size_t> group_kernels;                                // each member's kernel, the owner's first
        std::vector<int> group_funcs;                                     // each member's reduction
        for (auto &name : group_names) {
            for (size_t j = 0; j < plan.kernels.size(); j++)
                if (plan.kernels[j].split_func() == name) group_kernels.push_back(j);
            group_funcs.push_back(g.find(name));
        }
        auto pts = domain_points(g, group_funcs[0]);
        if (!pts || group_kernels.size() != group_funcs.size() || owner.split->dim != 1) continue;
        const Region &domain = pts->ranges;  // the points every member walks
        const size_t n = domain.size();
        const int64_t width = domain[0].extent(), steps = domain[1].extent();
        int64_t others = 1;
        for (size_t p = 2; p < n; p++) others *= domain[p].extent();

        for (size_t hi = 0; hi < plan.kernels.size() && hosted < 0; hi++) {
            KernelPlan &host = plan.kernels[hi];
            const int r = kernel_root[hi];
            const FuncNode &O = g.nodes[size_t(r)];
            // A row kernel over exactly the group's points: the same extents, position by position.
            if (host.kind() != TemplateKind::Row || host.get<RowParams>()->inner_dims != 1 || host.split ||
                !host.with.empty() || !same_region(O.region, domain))
                continue;
            auto explain = [&](const std::string &why) {
                plan.explanations.push_back(
                    {group_names[0], O.name, "column sums not computed in this row kernel's blocks: " + why});
            };
            if (O.updates > 0) {
                explain(O.name + " has update stages (the template computes a pure root)");
                break;
            }
            if (!fixed) {
                explain("some input or output buffer's extents are not constants (declare them, as lang's "
                        "declare_dense does)");
                break;
            }
            if (n > 4 || width < kInnerOuterLanes) {
                explain(n > 4
                            ? "more than 4 dims (the blocks take at most 3 grid dims)"
                            : "rows shorter than the " + std::to_string(kInnerOuterLanes) + " lanes of a block's row");
                break;
            }
            bool independent = true;
            for (size_t k : group_kernels) {
                const int m = kernel_root[k];
                independent = independent && !deps[size_t(m)].count(r) && !deps[size_t(r)].count(m);
            }
            if (!independent) {
                explain("a column sum's kernel and this kernel depend on each other");
                break;
            }
            // What the fused kernel reads: the row kernel's leaves and the column sums'.
            std::map<int, Region> leaves;
            add_leaves(g, r, O.region, inside_of(g, choice.at(r)), -1, leaves);
            double flops = choice.at(r).flops;
            for (size_t i = 0; i < group_funcs.size(); i++) {
                const KernelChoice &kc = choice.at(kernel_root[group_kernels[i]]);
                add_leaves(g, group_funcs[i], g.nodes[size_t(group_funcs[i])].region, inside_of(g, kc), -1, leaves);
                flops += kc.flops;
            }
            // Staged: the pipeline inputs read over every point (the rows both kinds of sum walk),
            // which no other kernel reads.
            std::vector<int> staged;
            int64_t row_bytes = 0;
            for (auto &[p, reg] : leaves) {
                const FuncNode &L = g.nodes[size_t(p)];
                if (!L.is_input || !same_region(reg, domain)) continue;
                bool elsewhere = false;
                for (size_t k = 0; k < plan.kernels.size() && !elsewhere; k++) elsewhere = k != hi && reads(k).count(p);
                if (elsewhere) continue;
                staged.push_back(p);
                row_bytes += width * L.elem_bytes;
            }
            if (staged.empty()) {
                explain("no full-size input that only these sums read, to load once per block");
                break;
            }
            // Rows per block: the most that fit in shared memory and divide the rows, while the
            // blocks still cover the SMs. More rows, fewer partials. The column sums take one
            // thread per column in the root's thread loops (lanes x rows): a row must be exactly
            // that wide. (Narrower rows, whose column threads fused with the root's have shorter
            // loops than the root's, made Halide 21 size a staged input by every row of the batch
            // on OpenCL: 32 x 256 threads, random seed 1 of the inner-outer family.)
            const int64_t rows_total = O.points() / width;
            const int64_t shared_limit = std::max(opt.device.shared_memory_bytes, opt.device.shared_memory_optin_bytes);
            int64_t R = 0;
            std::string why;
            for (int64_t c = kMaxInnerOuterRows; c >= 2 && R == 0; c /= 2) {
                if (c * kInnerOuterLanes != width) {
                    if (why.empty())
                        why = "rows of " + std::to_string(width) + " are not " + std::to_string(kInnerOuterLanes) +
                              " lanes times a power of two up to " + std::to_string(kMaxInnerOuterRows) +
                              " rows (the block's threads, one per column)";
                } else if (steps % c != 0 || rows_total / c < opt.device.sms) {
                    why = "no power of two up to " + std::to_string(kMaxInnerOuterRows) +
                          " rows per block divides the " + std::to_string(steps) +
                          " rows and leaves a block for every SM";
                } else if (c * row_bytes + kInnerOuterReductionBytes > shared_limit) {
                    why = "no number of rows per block fits " + kb_text(row_bytes) + " per row in " +
                          kb_text(shared_limit) + " of shared memory" +
                          (opt.device.shared_memory_optin_bytes == 0
                               ? " (above " + kb_text(opt.device.shared_memory_bytes) +
                                     " a launch must opt in: shared_memory_optin_kb)"
                               : std::string());
                } else {
                    R = c;
                }
            }
            if (R == 0) {
                explain(why);
                break;
            }
            const int64_t slices = steps / R, blocks = rows_total / R;
            int64_t partials_written = 0;
            std::vector<int64_t> own_partials;
            for (int f : group_funcs) {
                own_partials.push_back(slices * width * others * g.nodes[size_t(f)].elem_bytes);
                partials_written += own_partials.back();
            }
            const int64_t read = leaf_bytes(g, leaves), written = O.bytes() + partials_written;
            const double host_us =
                cost.phased_kernel_us(read + written, flops, blocks, R * row_bytes + kInnerOuterReductionBytes);
            std::vector<int64_t> member_read(group_kernels.size());
            for (size_t i = 0; i < group_kernels.size(); i++)
                member_read[i] = own_partials[i] + leaf_bytes(g, reads(group_kernels[i]));
            const int64_t old_bytes = host.bytes_read + host.bytes_written;
            // The host takes the group's partials; the reductions' kernels only add them.
            InnerOuterParams io;
            io.rows = int(R);
            io.lanes = kInnerOuterLanes;
            // Four neighbours per thread along a row and across the columns where that divides
            // the row: wide loads of the staged rows and of the small inputs.
            io.vector_width = width % (kInnerOuterLanes * 4) == 0 ? 4 : 1;
            io.row_extent = width;
            io.column_sums = group_names;
            io.dim = 1;
            io.slices = slices;
            for (int p : staged)
                io.staged.push_back({g.nodes[size_t(p)].name, {}, R * width * g.nodes[size_t(p)].elem_bytes, width});
            host.params = io;
            host.blocks = blocks;
            host.bytes_read = read;
            host.bytes_written = written;
            host.est_us = host_us;
            assign_row_dims(g, r, choice.at(r), plan);
            int64_t before = old_bytes;
            for (size_t i = 0; i < group_kernels.size(); i++) {
                KernelPlan &mk = plan.kernels[group_kernels[i]];
                before += mk.bytes_read + mk.bytes_written;
                const FuncNode &M = g.nodes[size_t(kernel_root[group_kernels[i]])];
                if (i == 0) mk.launches -= 2;  // no zeroing and summing launches of its own
                mk.split->group.clear();
                mk.split->launched_with = O.name;
                mk.split->slices = slices;
                mk.split->rows = R;
                mk.split->blocks = 0;
                mk.bytes_read = member_read[i];
                mk.bytes_written = M.bytes();
                mk.est_us = cost.kernel_us(member_read[i] + M.bytes(), 0, mk.blocks);
                for (auto &mt : plan.materialized) {
                    if (mt.func != mk.split->partials) continue;
                    mt.shape = {slices};
                    for (size_t p = n; p-- > 2;) mt.shape.push_back(domain[p].extent());
                    mt.shape.push_back(width);
                    mt.bytes = own_partials[i];
                }
            }
            int64_t after = host.bytes_read + host.bytes_written;
            for (size_t k : group_kernels) after += plan.kernels[k].bytes_read + plan.kernels[k].bytes_written;
            std::string names, inputs;
            for (size_t i = 0; i < group_names.size(); i++) names += (i ? ", " : "") + group_names[i];
            for (size_t i = 0; i < staged.size(); i++) inputs += (i ? ", " : "") + g.nodes[size_t(staged[i])].name;
            plan.explanations.push_back(
                {O.name, "",
                 "inner-outer: the column sums " + names + " are summed in this kernel's blocks, " + std::to_string(R) +
                     " rows each: a block loads its rows of " + inputs + " once into shared memory (" +
                     kb_text(R * row_bytes) +
                     (R * row_bytes > opt.device.shared_memory_bytes
                          ? ", above " + kb_text(opt.device.shared_memory_bytes) + ": the launch opts in"
                          : std::string()) +
                     ") and writes a partial per column and sum; with the sums' own kernels it moves " +
                     mb_text(after) + " instead of " + mb_text(before)});
            hosted = int(hi);
            break;
        }
    }
    if (hosted < 0) return -1;
    plan.total_bytes = 0;
    for (auto &k : plan.kernels) plan.total_bytes += k.bytes_read + k.bytes_written;
    return hosted;
}

}  // namespace solder::autosched
