#include "runtime/schedule_comparison.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <stdexcept>

#include "apps/app_pipeline.h"
#include "runtime/halide_autoschedulers.h"
#include "runtime/halide_error.h"
#include "autosched/model/pipeline_funcs.h"
#include "runtime/schedule_registry.h"

namespace solder::autosched {

namespace {

// A score as lines: schedule, kernels, bytes, minimum bytes, estimated time, then one root a line.
std::string score_to_text(const ScheduleScore &s) {
    char nums[160];
    std::snprintf(nums, sizeof nums, "%d\n%lld\n%lld\n%.17g\n", s.kernels, (long long)s.total_bytes,
                  (long long)s.min_bytes, s.est_us);
    std::string out = s.schedule + "\n" + nums;
    for (auto &r : s.roots) out += r + "\n";
    return out;
}

ScheduleScore score_from_text(const std::string &text) {
    std::vector<std::string> lines;
    for (size_t at = 0; at < text.size();) {
        size_t end = text.find('\n', at);
        if (end == std::string::npos) end = text.size();
        lines.push_back(text.substr(at, end - at));
        at = end + 1;
    }
    if (lines.size() < 5) throw std::runtime_error("a schedule's score came back incomplete from its process");
    ScheduleScore s;
    s.schedule = lines[0];
    s.kernels = std::stoi(lines[1]);
    s.total_bytes = std::stoll(lines[2]);
    s.min_bytes = std::stoll(lines[3]);
    s.est_us = std::stod(lines[4]);
    s.roots.assign(lines.begin() + 5, lines.end());
    return s;
}

}  // namespace

std::vector<ComparedSchedule> compare_schedules(const AppSpec &app, AppSize size, const Halide::Target &target,
                                                const SolderOptions &options, const std::vector<std::string> &only) {
    PlannerOptions opt = options.planner;
    autosched::plan_for_target(opt, target);
    std::vector<ComparedSchedule> rows;
    for (const ScheduleChoice &sched : all_schedules()) {
        if (!sched.supports(target)) continue;
        if (!only.empty() && std::find(only.begin(), only.end(), sched.name) == only.end()) continue;
        ComparedSchedule row;
        row.score.schedule = sched.name;
        try {
            // Two fresh copies per schedule: schedules are applied to the Funcs in place, and
            // some rewrite them (rfactor replaces a reduction's update by a sum of partials), so
            // the graph that is scored comes from a copy no schedule touches. The copies' Funcs
            // pair up by position (Halide makes their names unique in the process).
            BuiltPipeline p = with_halide_errors(app.name, [&] { return build_app_pipeline(app, size); });
            BuiltPipeline q = with_halide_errors(app.name, [&] { return build_app_pipeline(app, size); });
            FuncGraph g = with_halide_errors(app.name, [&] { return FuncGraph::build(p.outputs); });
            std::map<std::string, std::string> original;  // q's name -> p's
            auto pf = pipeline_functions(p.outputs), qf = pipeline_functions(q.outputs);
            if (pf.size() != qf.size()) throw std::runtime_error(app.name + ": two builds of the pipeline differ");
            for (size_t i = 0; i < pf.size(); i++) original[qf[i].name()] = pf[i].name();
            auto apply_and_score = [&] {
                // (In the child, Halide's error text goes back as it is, after the auto-scheduler's name.)
                if (running_in_child())
                    sched.apply(q.outputs, target, options);
                else
                    with_halide_errors("Halide", [&] { return sched.apply(q.outputs, target, options); });
                return score_applied_schedule(g, q.outputs, opt, sched.name, original);
            };
            // Halide's auto-schedulers run in a child process anyway (they may end the process
            // they fail in); the score is made there too, so the plugin runs once, not twice.
            const HalideAutoscheduler *halide = nullptr;
            for (auto &a : halide_autoschedulers())
                if (a.name == sched.name) halide = &a;
            if (halide && !running_in_child())
                row.score = score_from_text(run_in_child("Halide's " + halide->halide_name + " auto-scheduler",
                                                         [&] { return score_to_text(apply_and_score()); }));
            else
                row.score = apply_and_score();
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
    std::snprintf(line, sizeof line, "  %-14s %8s %14s %8s %12s  %s\n", "schedule", "kernels", "bytes moved", "x min",
                  "est us", "stored intermediates");
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
