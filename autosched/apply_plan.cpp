#include "autosched/apply_plan.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "autosched/model/pipeline_funcs.h"
#include "schedules/horizontal/horizontal.h"
#include "schedules/registry.h"
#include "schedules/split_k/split_k.h"
#include "schedules/split_k/split_k_schedule.h"
#include "schedules/writer/schedule_writer.h"

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
    ApplyContext c{w,
                   target,
                   plan,
                   [&](const std::string &name) {
                       auto it = funcs.find(name);
                       if (it == funcs.end())
                           throw std::runtime_error("the plan names Func '" + name + "', which the pipeline lacks");
                       return it->second;
                   },
                   {},
                   {}};
    // Reductions split-K sums in partials (also when launched horizontally with others).
    for (auto &k : plan.kernels)
        if (k.split) {
            c.split.insert(k.split->func);
            c.split.insert(k.split->group.begin(), k.split->group.end());
        } else if (auto *io = k.get<InnerOuterParams>()) {
            c.split.insert(io->column_sums.begin(), io->column_sums.end());
        }
    // First the rewrites (rfactor) of split reductions and column sums, which the kernels' templates
    // then place.
    // Each kernel's grid as the plan maps it (Plan::grid_map), its split-K partials' launches too.
    for (auto &k : plan.kernels) {
        w.set_grid_map(plan.grid_map(k));
        kernel_template(k.kind()).prepare(c, k);
        prepare_split_k(c, k);
    }
    // Split reductions that are kernel roots add their partials unrolled (horizontal kernels' roots:
    // the horizontal launches, which may spread the sum over lanes).
    for (auto &k : plan.kernels) {
        if (!is_gpu_target(target)) break;
        if (k.with.empty() && c.split.count(k.root)) unroll_partials_sum(w, c.get(k.root));
    }
    for (auto &k : plan.kernels) {
        w.set_grid_map(plan.grid_map(k));
        if (!k.with.empty())
            apply_horizontal(c, k);
        else
            kernel_template(k.kind()).apply(c, k);
    }
    w.set_grid_map(GridMap::Three);
    w.finish();
    return w.source("Solder plan" + (plan.app.empty() ? std::string() : " for " + plan.app) + ": " +
                    std::to_string(plan.kernels.size()) + (plan.kernels.size() == 1 ? " kernel, " : " kernels, ") +
                    std::to_string(plan.total_bytes) + " bytes moved (min " + std::to_string(plan.min_bytes) + ")");
}

}  // namespace solder::autosched
