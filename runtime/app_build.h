// One step from an app name to a loadable library: build the app's Funcs at a size, apply a named
// schedule for a target, compile and link (runtime/aot_compiler.h).
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "Halide.h"
#include "apps/app_spec.h"
#include "autosched/plan.h"

namespace solder {

struct AppBuildRequest {
    std::string app;
    AppSize size = AppSize::Full;
    std::string target = "host";  // host, opencl, cuda
    std::string schedule = "unfused";
    std::string out_dir;          // empty: a per-user folder under the system temp dir
    // Called with the app's Funcs before the schedule is applied (the graph dump analyses them as
    // the planner saw them).
    std::function<void(const std::vector<Halide::Func> &)> before_schedule;
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

// Throws std::runtime_error with a message naming the app, schedule or target that is wrong.
AppBuild build_app_library(const AppBuildRequest &req);
std::string default_out_dir();
std::string size_name(AppSize s);

}  // namespace solder
