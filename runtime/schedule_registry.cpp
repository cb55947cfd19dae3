#include "runtime/schedule_registry.h"

#include <stdexcept>

#include "autosched/autoschedule.h"
#include "autosched/planner.h"
#include "runtime/halide_autoschedulers.h"
#include "autosched/model/pipeline_funcs.h"
#include "schedules/unfused/unfused.h"

namespace solder {
using namespace Halide;

const std::vector<ScheduleChoice> &all_schedules() {
    static const std::vector<ScheduleChoice> all = [] {
        std::vector<ScheduleChoice> v;
        v.push_back({"unfused", "every Func compute_root: one kernel each (the baseline)",
                     [](const Target &) { return true; },
                     [](const std::vector<Func> &outs, const Target &t, const SolderOptions &) {
                         return AppliedSchedule{apply_unfused(outs, t), nullptr};
                     }});
        for (const auto &a : halide_autoschedulers()) {
            v.push_back({a.name, "Halide's " + a.halide_name + " auto-scheduler",
                         [a](const Target &t) { return is_gpu_target(t) ? a.gpu : a.host; },
                         [a](const std::vector<Func> &outs, const Target &t, const SolderOptions &) {
                             return AppliedSchedule{apply_halide_autoscheduler(a, outs, t), nullptr};
                         },
                         true});
        }
        v.push_back({"solder", "Solder's fusion planner", [](const Target &) { return true; },
                     [](const std::vector<Func> &outs, const Target &t, const SolderOptions &options) {
                         autosched::PlannerOptions opt = options.planner;
                         autosched::plan_for_target(opt, t);
                         auto a = autosched::autoschedule(outs, t, opt, "");
                         auto plan = std::make_shared<autosched::Plan>(a.plan);
                         return AppliedSchedule{a.source, plan};
                     }});
        return v;
    }();
    return all;
}

const ScheduleChoice *find_schedule(const std::string &name) {
    for (auto &s : all_schedules())
        if (s.name == name) return &s;
    return nullptr;
}

std::string schedule_names_joined() {
    std::string s;
    for (auto &c : all_schedules()) s += (s.empty() ? "" : ", ") + c.name;
    return s;
}

}  // namespace solder
