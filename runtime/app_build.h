// One step from an app name to a loadable library: build the app's Funcs at a size, apply a named
// schedule for a target, compile and link (runtime/aot_compiler.h).
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "Halide.h"
#include "apps/app_pipeline.h"
#include "apps/app_spec.h"
#include "autosched/model/options.h"
#include "autosched/model/plan.h"
#include "core/unknown_name_error.h"

namespace solder {

struct AppBuildRequest {
    std::string app;
    AppSize size = AppSize::Full;
    std::string target = "host";  // host, opencl, cuda
    std::string schedule = "unfused";
    std::string out_dir;  // empty: a per-user folder under the system temp dir
    // SOLDER_INJECT_FAULT=compile (runtime/fault_injection.h): applying the schedule throws a
    // Halide::CompileError, so the fallback path is tested with Halide's own error type.
    bool inject_compile_fault = false;
    // Called with the app's Funcs before the schedule is applied (the graph dump analyses them as
    // the planner saw them).
    std::function<void(const std::vector<Halide::Func> &)> before_schedule;
    // AppBuild::outputs scheduled in this process (the plan and loops dumps read them). Without
    // it, a Halide auto-scheduler's build runs wholly in a child process and `outputs` is empty.
    bool keep_scheduled_funcs = false;
    // The planner's knobs and fast math (autosched/model/options.h): the defaults unless the caller
    // says otherwise; the CLI passes what the environment and its flags made.
    SolderOptions options;
};

struct AppBuild {
    std::string library_path;
    int loop_nests = 0;     // Funcs computed at root (outputs included)
    double schedule_s = 0;  // time to apply the schedule
    double compile_s = 0;   // Halide code generation + link
    std::string schedule_source;
    std::shared_ptr<const autosched::Plan> plan;  // Solder's plan (schedule "solder" only)
    std::vector<Halide::Func> outputs;            // the scheduled Funcs (the loops dump prints them)
};

// Throws UnknownNameError naming the app, schedule or target that is wrong, and std::runtime_error
// when the schedule is not available for the target or fails.
AppBuild build_app_library(const AppBuildRequest &req);

// build_app_library in two steps, for callers that look at the Funcs before they are scheduled
// (runtime/compile_cache.h keys on them). build_app_funcs checks the names and builds the Funcs.
BuiltPipeline build_app_funcs(const AppBuildRequest &req);
void validate_app_request(const AppBuildRequest &req);  // the name checks alone
struct LibraryNaming {
    std::string stem;                               // empty: app__schedule__target__size
    std::map<std::string, std::string> extra_info;  // more key=value lines in the library's info
};
AppBuild schedule_and_compile(const AppBuildRequest &req, BuiltPipeline &p, const LibraryNaming &naming = {});

std::string default_out_dir();
std::string size_name(AppSize s);

}  // namespace solder
