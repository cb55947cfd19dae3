#include "autosched/apply_plan.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "autosched/model/reduction_domain.h"
#include "schedules/fused_templates.h"
#include "schedules/generic.h"
#include "schedules/inner_outer.h"
#include "schedules/split_k.h"
#include "autosched/model/pipeline_funcs.h"
#include "schedules/writer/schedule_writer.h"
#include "schedules/unfused/unfused.h"

namespace solder::autosched {
using namespace Halide;

std::string apply_plan(const Plan &plan, const std::vector<Func> &outputs, const Target &target) {
    ScheduleWriter w(outputs);
    // Vectors with guarded tails are masked: CUDA and the host emit them, Halide 21's OpenCL C
    // backend does not (those loops stay serial in each thread).
    if (!plan.fixed_sizes) w.guard_every_tail(!is_gpu_target(target) || target.has_feature(Target::CUDA));
    std::map<std::string, Func> funcs;
    for (auto &fn : pipeline_functions(outputs)) funcs.emplace(fn.name(), Func(fn));
    // Pipeline inputs by name (the plan's name for them): the Funcs ImageParams are called through.
    for (auto &[name, fn] : Internal::build_environment([&] {
             std::vector<Internal::Function> o;
             for (auto &f : outputs) o.push_back(f.function());
             return o;
         }()))
        if (is_input_wrapper(fn)) {
            const auto *c = fn.definition().values()[0].as<Internal::Call>();
            funcs.emplace(c->param.name(), Func(fn));
        }
    auto get = [&](const std::string &name) {
        auto it = funcs.find(name);
        if (it == funcs.end()) throw std::runtime_error("the plan names Func '" + name + "', which the pipeline lacks");
        return it->second;
    };
    // Split-K first: rfactor rewrites each split reduction, which its kernel's template then places.
    // Halide makes a Func name unique in the process (Internal::unique_name): the name as asked,
    // or, when another Func had it, with every '$' made '_' and "$<n>" appended (sum_18_intm$1,
    // sum_1$1_intm -> sum_1_1_intm$2). The dumps match such names to the plan's.
    auto check_partials = [](const Func &partials, const std::string &func, const std::string &expected) {
        const std::string &n = partials.name();
        std::string base = expected;
        for (char &c : base)
            if (c == '$') c = '_';
        const bool uniquified = n.size() > base.size() + 1 && n.compare(0, base.size(), base) == 0 &&
                                n[base.size()] == '$' &&
                                n.find_first_not_of("0123456789", base.size() + 1) == std::string::npos;
        if (n != expected && !uniquified)
            throw std::runtime_error("split-K of " + func + " made '" + partials.name() + "', the plan expects '" +
                                     expected + "'");
    };
    // Inner-outer kernels' column sums: rfactored here, laid out by the host kernel's template.
    struct ColumnSums {
        SharedSplitPartials sk;
        std::vector<SharedSplitMember> members;
        std::vector<std::string> names;
    };
    std::map<std::string, ColumnSums> column_sums;
    auto group_of = [&](const KernelPlan &k, std::vector<SharedSplitMember> &members) {
        std::vector<ReductionDomain> domains;
        for (auto &name : k.split_group) {
            Func f = get(name);
            auto d = reduction_domain(f.function());
            if (!d) throw std::runtime_error("shared split-K: " + name + " has no iteration domain to share");
            members.push_back({f, d->vars, d->reduced});
            domains.push_back(*d);
        }
        auto names = shared_position_names(domains, k.split_dim);
        if (!names) throw std::runtime_error("shared split-K: the loops of " + k.split_group[0] + "'s group cannot share names");
        return *names;
    };
    for (auto &k : plan.kernels) {
        if (k.template_name == "inner_outer") {
            if (!is_gpu_target(target)) throw std::runtime_error("the inner-outer kernel " + k.name + " needs a GPU target");
            std::vector<SharedSplitMember> members;
            auto names = group_of(k, members);
            auto sk = rfactor_shared_split_k(w, members, names, k.split_dim, k.split_rows);
            for (size_t i = 0; i < sk.partials.size(); i++)
                check_partials(sk.partials[i], k.split_group[i], partials_name(k.split_group[i]));
            column_sums.emplace(k.name, ColumnSums{sk, members, names});
            continue;
        }
        if (k.split_func.empty() || !k.split_launched_with.empty()) continue;
        if (k.split_group.empty()) {
            check_partials(schedule_split_k_partials(w, get(k.split_func), k.split_k, target), k.split_func, k.partials);
            continue;
        }
        std::vector<SharedSplitMember> members;
        auto names = group_of(k, members);
        auto partials = schedule_shared_split_k(w, members, names, k.split_dim, k.split_rows, k.split_vector, target);
        for (size_t i = 0; i < partials.size(); i++)
            check_partials(partials[i], k.split_group[i], partials_name(k.split_group[i]));
    }
    // Split reductions that are kernel roots (also when launched horizontally with others) add
    // their partials unrolled.
    std::set<std::string> split;
    for (auto &k : plan.kernels) {
        if (!k.split_func.empty()) split.insert(k.split_func);
        split.insert(k.split_group.begin(), k.split_group.end());
    }
    // (Horizontal kernels' roots: the horizontal template, which may spread the sum over lanes.)
    for (auto &k : plan.kernels) {
        if (!is_gpu_target(target)) break;
        if (k.with.empty() && split.count(k.root)) unroll_partials_sum(w, get(k.root));
    }
    for (auto &k : plan.kernels) {
        Func root = get(k.root);
        std::vector<Func> at_block;
        std::vector<int64_t> at_block_points;
        std::vector<std::string> at_block_row_dims;
        for (auto &name : k.funcs) {
            const FuncPlan *p = plan.find(name);
            if (p && p->placement == Placement::ComputeAtBlock) {
                at_block.push_back(get(name));
                at_block_points.push_back(p->block_points);
                at_block_row_dims.push_back(p->row_dim);
            }
        }
        if (k.template_name == "row") {
            std::vector<StagedRow> staged;
            if (is_gpu_target(target))
                for (auto &s : k.staged) {
                    std::vector<Func> readers;
                    for (auto &r : s.readers) readers.push_back(get(r));
                    staged.push_back({w.in(get(s.func), readers), s.row_extent});
                }
            RowShape shape;
            shape.inner_dims = k.inner_dims;
            shape.vector_width = k.vector_width;
            shape.rows_per_block = k.rows_per_block;
            shape.row_threads = k.row_threads;
            shape.warps = k.row_warps;
            shape.row_extent = k.row_extent;
            shape.unrolled_dims = k.unrolled_dims;
            schedule_row_kernel(w, root, shape, at_block, at_block_points, at_block_row_dims, staged, target);
        } else if (k.template_name == "inner_outer") {
            // (The group as read before rfactor rewrote its reductions.)
            const ColumnSums &cs = column_sums.at(k.name);
            const SharedSplitPartials &sk = cs.sk;
            const auto &names = cs.names;
            InnerOuterShape shape;
            shape.rows = k.rows_per_block;
            shape.lanes = k.row_threads;
            // (Vectors on CUDA only, as for the split-K partials: Halide 21's OpenCL C backend
            // cannot emit the masked vectors a guarded tail can make.)
            shape.vector = target.has_feature(Target::CUDA) ? k.vector_width : 1;
            shape.row_extent = k.row_extent;
            shape.column_name = names[0];
            shape.kept_names.assign(names.size(), "");
            for (size_t p = 2; p < names.size(); p++)
                if (int(p) != k.split_dim) shape.kept_names[p] = names[p];
            std::vector<Func> staged;
            for (auto &s : k.staged) staged.push_back(get(s.func));
            std::vector<BlockColumnSum> columns;
            for (size_t i = 0; i < sk.partials.size(); i++) columns.push_back({sk.partials[i], cs.members[i].f});
            schedule_inner_outer_kernel(w, root, shape, at_block, at_block_row_dims, staged, columns, sk.slice, sk.step,
                                        target);
        } else if (k.template_name == "generic") {
            schedule_generic_kernel(w, root, target, k.stage_threads);
        } else if (k.template_name == "block_reduction") {
            schedule_block_reduction(w, root, target);
        } else if (k.template_name == "stencil_tile") {
            const bool is_output = std::find(k.outputs.begin(), k.outputs.end(), k.root) != k.outputs.end();
            schedule_stencil_kernel(w, root, k.inner_dims, k.whole_tiles, is_output, at_block, target);
        } else if (!k.with.empty()) {
            std::vector<Func> roots{root};
            std::vector<bool> adds_partials{split.count(k.root) > 0};
            for (auto &name : k.with) {
                roots.push_back(get(name));
                adds_partials.push_back(split.count(name) > 0);
            }
            schedule_horizontal_1d(w, roots, target, adds_partials);
        } else {
            schedule_pointwise_kernel(w, root, k.vector_width, target);
        }
    }
    return w.source("Solder plan" + (plan.app.empty() ? std::string() : " for " + plan.app) + ": " +
                    std::to_string(plan.kernels.size()) +
                    (plan.kernels.size() == 1 ? " kernel, " : " kernels, ") + std::to_string(plan.total_bytes) +
                    " bytes moved (min " + std::to_string(plan.min_bytes) + ")");
}

}  // namespace solder::autosched
