#include "runtime/fallback_run.h"

#include <cstdio>
#include <memory>

#include "runtime/compile_cache.h"
#include "runtime/fault_injection.h"

namespace solder {

namespace {

struct Attempt {
    AppBuild build;
    RunReport report;
    std::string failed;  // "" when it ran; else how it failed: "to compile", "to load", "at run time"
    std::shared_ptr<PipelineLibrary> library;
};

Attempt attempt(const AppSpec &app, const AppBuildRequest &req, const RunOptions &opt, bool launch_fault) {
    Attempt a;
    try {
        a.build = build_app_library_cached(req);
    } catch (const std::invalid_argument &) {
        throw;  // a bad knob value is an error, not a schedule to fall back from
    } catch (const std::exception &e) {
        a.report.error = e.what();
        a.failed = "to compile";
        return a;
    }
    std::string err;
    std::shared_ptr<PipelineLibrary> lib = PipelineLibrary::open(a.build.library_path, &err);
    a.library = lib;
    if (!lib) {
        a.report.error = app.name + ": " + err;
        a.failed = "to load";
        return a;
    }
    if (launch_fault && !lib->inject_launch_fault(true)) {
        a.report.error = app.name + ": SOLDER_INJECT_FAULT=launch: '" + lib->path() + "' has no fault switch";
        a.failed = "to load";
        return a;
    }
    try {
        a.report = run_app(app, *lib, opt);
    } catch (const std::exception &e) {
        a.report = RunReport{};
        a.report.error = app.name + ": " + e.what();
    }
    // The library stays loaded while anything else in the process holds it: leave it healthy.
    if (launch_fault) lib->inject_launch_fault(false);
    if (!a.report.error.empty()) a.failed = "at run time";
    return a;
}

std::string first_line(const std::string &s) { return s.substr(0, s.find('\n')); }

}  // namespace

bool schedule_has_fallback(const std::string &schedule) { return schedule == "solder"; }

void validate_run_request(const AppBuildRequest &req) {
    validate_app_request(req);
    CompileCache::shared();  // a malformed SOLDER_CACHE_ENTRIES / SOLDER_CACHE_DISK is reported here
    if (injected_fault_from_env() == InjectedFault::Launch && req.target == "host")
        throw std::runtime_error("SOLDER_INJECT_FAULT=launch needs a GPU target (opencl or cuda): on the host "
                                 "there are no kernel launches to fail");
}

AppRun build_and_run_app(const AppBuildRequest &req, const RunOptions &opt) {
    validate_run_request(req);
    const AppSpec &app = *find_app_spec(req.app);
    InjectedFault fault = injected_fault_from_env();

    AppBuildRequest first_req = req;
    first_req.inject_compile_fault = fault == InjectedFault::Compile;
    Attempt first = attempt(app, first_req, opt, fault == InjectedFault::Launch);
    AppRun run{first.build, first.report, {}, first.library};
    if (first.failed.empty() || !schedule_has_fallback(req.schedule) || !req.options.fallback) return run;

    std::string error = first.report.error;
    if (error.compare(0, app.name.size() + 2, app.name + ": ") == 0) error = error.substr(app.name.size() + 2);
    std::string warning = "solder: warning: " + app.name + ": schedule '" + req.schedule + "' failed " + first.failed +
                          ": " + error + "; falling back to the '" + kFallbackSchedule + "' schedule";
    std::fprintf(stderr, "%s\n", warning.c_str());
    std::fflush(stderr);
    run.warnings.push_back(warning);

    AppBuildRequest safe = req;
    safe.schedule = kFallbackSchedule;
    Attempt second = attempt(app, safe, opt, false);
    run.build = second.build;
    run.report = second.report;
    run.library = second.library;
    run.report.fallback = "schedule '" + req.schedule + "' failed " + first.failed + " (" + first_line(error) +
                          "); ran the '" + kFallbackSchedule + "' schedule instead";
    if (!second.failed.empty())
        run.report.error = "the fallback schedule '" + std::string(kFallbackSchedule) + "' failed " + second.failed +
                           " too: " + second.report.error;
    return run;
}

}  // namespace solder
