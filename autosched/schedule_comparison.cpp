#include "autosched/schedule_comparison.h"

#include <cstdio>

#include "apps/app_pipeline.h"
#include "runtime/halide_error.h"
#include "schedules/schedule_registry.h"

namespace solder::autosched {

std::vector<ComparedSchedule> compare_schedules(const AppSpec &app, AppSize size, const Halide::Target &target,
                                                const PlannerOptions &opt) {
    std::vector<ComparedSchedule> rows;
    for (const ScheduleChoice &sched : all_schedules()) {
        if (!sched.supports(target)) continue;
        ComparedSchedule row;
        row.score.schedule = sched.name;
        try {
            // A fresh pipeline per schedule: schedules are applied to the Funcs in place.
            BuiltPipeline p = with_halide_errors(app.name, [&] { return build_app_pipeline(app, size); });
            FuncGraph g = with_halide_errors(app.name, [&] { return FuncGraph::build(p.outputs); });
            with_halide_errors("Halide", [&] { return sched.apply(p.outputs, target); });
            row.score = score_applied_schedule(g, p.outputs, opt, sched.name);
        } catch (const std::exception &e) {
            row.error = e.what();
        }
        rows.push_back(row);
    }
    return rows;
}

std::string comparison_table(const std::string &app, const std::vector<ComparedSchedule> &rows) {
    std::string out = "schedules for " + app + ", scored with Solder's cost model:\n";
    char line[512];
    std::snprintf(line, sizeof line, "  %-14s %8s %14s %8s %12s  %s\n", "schedule", "kernels", "bytes moved",
                  "x min", "est us", "stored intermediates");
    out += line;
    for (auto &r : rows) {
        if (!r.error.empty()) {
            std::string e = r.error.substr(0, 160);
            std::snprintf(line, sizeof line, "  %-14s failed: %s\n", r.score.schedule.c_str(), e.c_str());
            out += line;
            continue;
        }
        const ScheduleScore &s = r.score;
        std::string stored;
        // Without the "$N" Halide appends to names when the app is built again in one process.
        auto bare = [](const std::string &n) { return n.substr(0, n.find('$')); };
        for (size_t i = 0; i < s.roots.size() && i < 6; i++) stored += (i ? ", " : "") + bare(s.roots[i]);
        if (s.roots.size() > 6) stored += ", ... (" + std::to_string(s.roots.size()) + ")";
        std::snprintf(line, sizeof line, "  %-14s %8d %14lld %8.3f %12.3f  %s\n", s.schedule.c_str(), s.kernels,
                      (long long)s.total_bytes, s.min_bytes ? double(s.total_bytes) / double(s.min_bytes) : 0.0,
                      s.est_us, stored.empty() ? "-" : stored.c_str());
        out += line;
    }
    return out;
}

}  // namespace solder::autosched
