// What `solder run` does with one app: build (through the compile cache), run, and check against
// the reference. When Solder's planned schedule fails to compile, or its pipeline call fails at
// launch or run time, it warns on stderr (naming the app, the kernel when a launch failed, and
// Halide's error), rebuilds with the unfused schedule, runs that and checks it; the report says
// that the fallback ran. With the request's options.fallback off (SOLDER_DISABLE=fallback,
// --disable fallback) the failure is final.
//
// Only Solder's own planned schedule falls back. Halide's auto-schedulers are baselines: their
// failures are findings for the main job's table, not something to paper over. Wrong results never
// fall back either: they are a bug to see, not a failure to survive.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "runtime/app_build.h"
#include "runtime/app_runner.h"

namespace solder {

inline constexpr const char *kFallbackSchedule = "unfused";
bool schedule_has_fallback(const std::string &schedule);

struct AppRun {
    AppBuild build;                            // of the library that ran last (the fallback's, when it ran)
    RunReport report;                          // report.fallback says why the fallback ran
    std::vector<std::string> warnings;         // as printed to stderr
    std::shared_ptr<PipelineLibrary> library;  // the library that ran last, if it loaded (run dumps read it)
};

// Throws UnknownNameError for an unknown app, schedule, target or SOLDER_INJECT_FAULT value, and
// std::runtime_error for a request that cannot run as asked. (Its options were checked when they
// were parsed.)
void validate_run_request(const AppBuildRequest &req);
// Throws only what validate_run_request throws; every other failure is in the report.
AppRun build_and_run_app(const AppBuildRequest &req, const RunOptions &opt);

}  // namespace solder
