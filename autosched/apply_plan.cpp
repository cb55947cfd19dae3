#include "autosched/apply_plan.h"

#include <map>
#include <stdexcept>

#include "schedules/fused_templates.h"
#include "schedules/pipeline_funcs.h"
#include "schedules/schedule_writer.h"
#include "schedules/unfused.h"

namespace solder::autosched {
using namespace Halide;

std::string apply_plan(const Plan &plan, const std::vector<Func> &outputs, const Target &target) {
    ScheduleWriter w(outputs);
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
    for (auto &k : plan.kernels) {
        Func root = get(k.root);
        std::vector<Func> at_block;
        std::vector<int64_t> at_block_points;
        for (auto &name : k.funcs) {
            const FuncPlan *p = plan.find(name);
            if (p && p->placement == Placement::ComputeAtBlock)
                at_block.push_back(get(name)), at_block_points.push_back(p->block_points);
        }
        if (!k.split_func.empty()) {
            // First the partials' launch; the reduction is then placed by the kernel's template.
            Func partials = schedule_split_k_partials(w, get(k.split_func), k.split_k, target);
            if (partials.name() != k.partials)
                throw std::runtime_error("split-K of " + k.split_func + " made '" + partials.name() +
                                         "', the plan expects '" + k.partials + "'");
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
            shape.unrolled_dims = k.unrolled_dims;
            schedule_row_kernel(w, root, shape, at_block, at_block_points, staged, target);
        } else if (k.template_name == "block_reduction") {
            schedule_block_reduction(w, root, target);
        } else if (k.template_name == "stencil_tile") {
            schedule_stencil_kernel(w, root, k.inner_dims, k.whole_tiles, at_block, target);
        } else if (!k.with.empty()) {
            std::vector<Func> roots{root};
            for (auto &w : k.with) roots.push_back(get(w));
            schedule_horizontal_1d(w, roots, target);
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
