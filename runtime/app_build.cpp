#include "runtime/app_build.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <optional>
#include <filesystem>
#include <stdexcept>

#include "apps/app_pipeline.h"
#include "runtime/aot_compiler.h"
#include "runtime/fast_device_math.h"
#include "runtime/fault_injection.h"
#include "runtime/halide_autoschedulers.h"
#include "runtime/halide_error.h"
#include "runtime/planned_kernels.h"
#include "runtime/targets.h"
#include "autosched/model/pipeline_funcs.h"
#include "runtime/schedule_registry.h"

namespace solder {

std::string default_out_dir() {
    if (const char *d = std::getenv("SOLDER_OUT_DIR")) return d;
    return (std::filesystem::temp_directory_path() / ("solder-" + std::to_string(getuid()))).string();
}

std::string size_name(AppSize s) { return s == AppSize::Full ? "full" : "small"; }

void validate_app_request(const AppBuildRequest &req) {
    if (!find_app_spec(req.app))
        throw UnknownNameError("unknown app '" + req.app + "' (apps: " + app_names_joined() + ")");
    if (!is_target_name(req.target))
        throw UnknownNameError("unknown target '" + req.target + "' (targets: host, opencl, cuda)");
    const ScheduleChoice *sched = find_schedule(req.schedule);
    if (!sched)
        throw UnknownNameError("unknown schedule '" + req.schedule + "' (schedules: " + schedule_names_joined() + ")");
    if (!sched->supports(make_target(req.target)))
        throw std::runtime_error("schedule '" + req.schedule + "' is not available for target '" + req.target + "' (" +
                                 sched->description + ")");
}

BuiltPipeline build_app_funcs(const AppBuildRequest &req) {
    validate_app_request(req);
    const AppSpec *app = find_app_spec(req.app);
    return with_halide_errors(req.app + ": building its Funcs", [&] { return build_app_pipeline(*app, req.size); });
}

AppBuild build_app_library(const AppBuildRequest &req) {
    BuiltPipeline p = build_app_funcs(req);
    return schedule_and_compile(req, p);
}

namespace {

// A schedule that forks a child to protect Solder from its crashes (Halide's auto-schedulers) is
// applied and compiled in that child, so it runs once, not once there and once here. The library is
// a file; the rest of the build comes back as text: a line of counts and times, the library's path,
// then the schedule's source.
std::string encode_build(const AppBuild &b) {
    return std::to_string(b.loop_nests) + " " + std::to_string(b.schedule_s) + " " + std::to_string(b.compile_s) +
           "\n" + b.library_path + "\n" + b.schedule_source;
}

std::optional<AppBuild> decode_build(const std::string &text) {
    AppBuild b;
    size_t l1 = text.find('\n'), l2 = l1 == std::string::npos ? l1 : text.find('\n', l1 + 1);
    if (l2 == std::string::npos) return std::nullopt;
    if (sscanf(text.c_str(), "%d %lf %lf", &b.loop_nests, &b.schedule_s, &b.compile_s) != 3) return std::nullopt;
    b.library_path = text.substr(l1 + 1, l2 - l1 - 1);
    b.schedule_source = text.substr(l2 + 1);
    return b;
}

}  // namespace

AppBuild schedule_and_compile(const AppBuildRequest &req, BuiltPipeline &p, const LibraryNaming &naming) {
    validate_app_request(req);
    const ScheduleChoice *sched = find_schedule(req.schedule);
    Halide::Target target = make_target(req.target);
    // Here the whole build runs in the child, unless the caller needs this process's Funcs
    // scheduled or looks at them first. A child that crashed or ended without an exception of its
    // own (a plugin's uncatchable throw) leaves the build to the path below, which runs the
    // auto-scheduler in a child of its own again and reports its failure by name.
    if (sched->forks && !running_in_child() && !req.keep_scheduled_funcs && !req.before_schedule &&
        !req.inject_compile_fault) {
        ChildOutcome r = run_forked([&] { return encode_build(schedule_and_compile(req, p, naming)); });
        if (r.threw) throw std::runtime_error(r.err);
        if (r.ok)
            if (std::optional<AppBuild> b = decode_build(r.out)) return *b;
    }

    using clock = std::chrono::steady_clock;
    AppBuild b;
    if (req.before_schedule) req.before_schedule(p.outputs);
    if (fast_device_math_enabled(target, req.options)) use_fast_device_math(p.outputs);
    auto t0 = clock::now();
    try {
        AppliedSchedule applied = with_halide_errors("Halide", [&] {
            if (req.inject_compile_fault)
                throw Halide::CompileError(injected_compile_fault_message(req.app, req.schedule));
            return sched->apply(p.outputs, target, req.options);
        });
        b.schedule_source = applied.source;
        b.plan = applied.plan;
    } catch (const std::invalid_argument &e) {  // a bad knob value: the user's to fix, never a fallback
        throw std::invalid_argument(req.app + ": " + e.what());
    } catch (const std::exception &e) {
        throw std::runtime_error(req.app + ": schedule '" + req.schedule + "' failed: " + e.what());
    }
    auto t1 = clock::now();
    b.loop_nests = count_root_stages(p.outputs);
    b.outputs = p.outputs;

    LibraryRequest lr;
    lr.pipeline = p.pipeline();
    lr.arguments = p.arguments();
    lr.target = target;
    lr.out_dir = req.out_dir.empty() ? default_out_dir() : req.out_dir;
    lr.stem = req.app + "__" + req.schedule + "__" + req.target + "__" + size_name(req.size);
    if (!naming.stem.empty()) lr.stem = naming.stem;
    lr.info = {{"app", req.app},
               {"schedule", req.schedule},
               {"target", req.target},
               {"size", size_name(req.size)},
               {"loop_nests", std::to_string(b.loop_nests)}};
    lr.info.insert(naming.extra_info.begin(), naming.extra_info.end());
    if (b.plan) lr.info["plan_kernels"] = encode_planned_kernels(planned_kernels_of(*b.plan));  // bandwidth dump
    try {
        b.library_path = with_halide_errors("Halide", [&] { return compile_pipeline_library(lr); });
    } catch (const std::exception &e) {
        throw std::runtime_error(req.app + ": compiling with schedule '" + req.schedule + "' for " + req.target +
                                 " failed: " + e.what());
    }
    b.schedule_s = std::chrono::duration<double>(t1 - t0).count();
    b.compile_s = std::chrono::duration<double>(clock::now() - t1).count();
    return b;
}

}  // namespace solder
