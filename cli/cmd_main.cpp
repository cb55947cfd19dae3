// `solder main`: the main job. Every app under every schedule available on the best target here,
// each in its own process (an auto-scheduler that crashes costs one row, not the table), then one
// table: app, schedule, kernels, max error, time.
#include <sys/wait.h>

#include <cstdio>
#include <string>
#include <vector>

#include "apps/app_spec.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "runtime/device_probe.h"
#include "runtime/targets.h"
#include "runtime/schedule_registry.h"

namespace solder {

namespace {

std::string field(const std::string &json, const std::string &key) {
    std::string k = "\"" + key + "\":";
    size_t p = json.find(k);
    if (p == std::string::npos) return "";
    p += k.size();
    if (json[p] == '"') {
        size_t e = p + 1;
        while (e < json.size() && !(json[e] == '"' && json[e - 1] != '\\')) e++;
        return json.substr(p + 1, e - p - 1);
    }
    size_t e = json.find_first_of(",}", p);
    return json.substr(p, e - p);
}

struct Row {
    std::string app, schedule, kernels = "-", err = "-", us = "-", status, note;
};

std::string first_line(std::string s) {
    size_t nl = s.find("\\n");  // JSON-escaped newline
    if (nl != std::string::npos) s = s.substr(0, nl);
    return s.size() > 400 ? s.substr(0, 400) + "..." : s;
}

Row run_child(const std::string &self, const std::string &app, const std::string &sched, const std::string &target,
              bool small) {
    std::string cmd = "'" + self + "' run " + app + " --schedule " + sched + " --target " + target +
                      (small ? " --small" : "") + " --iters 5 --machine 2>&1";
    Row r;
    r.app = app;
    r.schedule = sched;
    FILE *p = popen(cmd.c_str(), "r");
    if (!p) {
        r.status = "ERROR (could not start)";
        return r;
    }
    std::string out, result;
    char buf[4096];
    while (fgets(buf, sizeof buf, p)) {
        std::string line = buf;
        out += line;
        if (line.rfind("SOLDER_RESULT ", 0) == 0) result = line.substr(14);
    }
    int st = pclose(p);
    if (result.empty()) {
        r.status = WIFSIGNALED(st) ? "CRASH (signal " + std::to_string(WTERMSIG(st)) + ")"
                                   : "CRASH (exit " + std::to_string(WEXITSTATUS(st)) + ")";
        r.note = "solder run crashed; its last output: " + out.substr(out.size() > 300 ? out.size() - 300 : 0);
        return r;
    }
    bool pass = field(result, "pass") == "true";
    std::string error = field(result, "error");
    // Solder's schedule failed and the unfused one ran instead (runtime/fallback_run.h): the row's
    // numbers are the unfused schedule's, so it is marked and counted as a failure of the schedule.
    std::string fallback = field(result, "fallback");
    if (!fallback.empty()) r.note = first_line(fallback);
    if (!error.empty()) {
        r.status = "FAIL (see notes)";
        r.note = (r.note.empty() ? "" : r.note + "; ") + first_line(error);
        if (field(result, "us") == "0.000") return r;
    }
    r.kernels = field(result, "kernels");
    r.err = field(result, "max_err");
    r.us = field(result, "us");
    if (r.note.empty())
        r.status = pass ? "PASS" : "FAIL";
    else if (error.empty())
        r.status = pass ? "PASS (fallback)" : "FAIL (fallback)";
    return r;
}

void print_row(const Row &r) {
    std::printf("%-18s %-14s %8s %12s %14s  %s\n", r.app.c_str(), r.schedule.c_str(), r.kernels.c_str(), r.err.c_str(),
                r.us.c_str(), r.status.c_str());
    std::fflush(stdout);
}

}  // namespace

int cmd_main(int argc, char **argv) {
    Args a = Args::parse(argc, argv, 2, {"target", "apps", "schedules"}, {"full"});
    std::string target = a.get("target", best_target_name());
    bool small = !a.has("full");
    std::string self = "/proc/self/exe";
    char path[4096];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n > 0) self = std::string(path, n);

    Halide::Target t = make_target(target);
    std::vector<std::string> schedules;
    for (auto &s : all_schedules())
        if (s.supports(t)) schedules.push_back(s.name);

    std::printf("Solder main job: every app under every schedule on target %s (%s sizes%s)\n", target.c_str(),
                small ? "reduced" : "full", small ? "; --full for the benchmark sizes" : "");
    std::printf("kernels = %s; time = median of 5 runs; each output checked against a plain C++ reference\n\n",
                target == "host" ? "loop nests (Funcs at root)" : "kernel launches per run");
    std::printf("%-18s %-14s %8s %12s %14s  %s\n", "app", "schedule", "kernels", "max error", "time (us)", "check");
    int failed = 0, halide_failed = 0, total = 0;
    std::vector<Row> notes;
    for (auto &app : all_app_specs()) {
        if (!a.get("apps").empty() && ("," + a.get("apps") + ",").find("," + app.name + ",") == std::string::npos)
            continue;
        for (auto &s : schedules) {
            if (!a.get("schedules").empty() &&
                ("," + a.get("schedules") + ",").find("," + s + ",") == std::string::npos)
                continue;
            Row r = run_child(self, app.name, s, target, small);
            print_row(r);
            total++;
            // A Halide auto-scheduler failing is a finding about Halide, reported in the notes;
            // the exit code is about Solder's own schedules.
            bool halide_own = s != "unfused" && s != "solder";
            if (r.status != "PASS") (halide_own ? halide_failed : failed)++;
            if (!r.note.empty()) notes.push_back(r);
        }
    }
    if (!notes.empty()) std::printf("\nnotes:\n");
    for (auto &r : notes) std::printf("  %s / %s: %s\n", r.app.c_str(), r.schedule.c_str(), r.note.c_str());
    std::printf("\n%d passed, %d failed", total - failed - halide_failed, failed);
    if (halide_failed)
        std::printf(" (Solder's schedules); %d runs of Halide's auto-schedulers failed, see notes", halide_failed);
    std::printf("\n");
    return failed ? 1 : 0;
}

}  // namespace solder
