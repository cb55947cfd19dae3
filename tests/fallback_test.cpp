// The fallback (runtime/fallback_run.h): when Solder's schedule fails to compile or its pipeline
// fails at launch, the unfused schedule runs instead and is still checked against the reference;
// with the fallback option off the failure is final. The failures are injected with
// SOLDER_INJECT_FAULT (runtime/fault_injection.h) on OpenCL (PoCL), where the launch fault goes
// through Halide's real OpenCL error path.
#include <gtest/gtest.h>

#include <cstdlib>

#include "runtime/fallback_run.h"
#include "tests/support/test_processes.h"

using namespace solder;
using solder::testing::contains;

namespace {

AppBuildRequest opencl_request(const std::string &app, const std::string &schedule) {
    AppBuildRequest r;
    r.app = app;
    r.size = AppSize::Small;
    r.target = "opencl";
    r.schedule = schedule;
    return r;
}

RunOptions one_run() {
    RunOptions o;
    o.size = AppSize::Small;
    o.iters = 1;
    o.warmup = 0;
    return o;
}

std::string schedule_of(const AppBuild &b) {
    std::string err;
    auto lib = PipelineLibrary::open(b.library_path, &err);
    return lib ? lib->info("schedule") : err;
}

// Sets the environment for one test and clears it after, whatever happens.
struct Env {
    Env(std::initializer_list<std::pair<const char *, const char *>> vars) {
        for (auto &[k, v] : vars) setenv(k, v, 1), names.push_back(k);
    }
    ~Env() {
        for (auto k : names) unsetenv(k);
    }
    std::vector<const char *> names;
};

}  // namespace

TEST(Fallback, CompileFaultRunsTheUnfusedScheduleAndChecksIt) {
    Env env{{"SOLDER_INJECT_FAULT", "compile"}};
    AppRun run = build_and_run_app(opencl_request("rmsnorm", "solder"), one_run());
    EXPECT_EQ(run.report.error, "");
    EXPECT_TRUE(run.report.pass);
    EXPECT_FALSE(run.report.checks.empty()) << "the fallback's outputs must be checked";
    EXPECT_EQ(schedule_of(run.build), "unfused");
    EXPECT_TRUE(contains(run.report.fallback, "schedule 'solder' failed to compile")) << run.report.fallback;
    ASSERT_EQ(run.warnings.size(), 1u);
    EXPECT_TRUE(contains(run.warnings[0], "rmsnorm")) << run.warnings[0];
    EXPECT_TRUE(contains(run.warnings[0], "injected failure")) << run.warnings[0];
}

TEST(Fallback, LaunchFaultRunsTheUnfusedScheduleAndNamesTheKernel) {
    // The kernel the solder schedule launches, seen by the launch hooks on a healthy run.
    AppRun healthy = build_and_run_app(opencl_request("rmsnorm", "solder"), one_run());
    ASSERT_TRUE(healthy.report.pass) << healthy.report.error;
    ASSERT_FALSE(healthy.report.launches.empty());
    std::string kernel = healthy.report.launches[0].kernel;

    Env env{{"SOLDER_INJECT_FAULT", "launch"}};
    AppRun run = build_and_run_app(opencl_request("rmsnorm", "solder"), one_run());
    EXPECT_EQ(run.report.error, "");
    EXPECT_TRUE(run.report.pass);
    EXPECT_EQ(schedule_of(run.build), "unfused");
    EXPECT_GT(run.report.launches_per_run, 0) << "the fallback library must launch normally";
    EXPECT_TRUE(contains(run.report.fallback, "failed at run time")) << run.report.fallback;
    ASSERT_EQ(run.warnings.size(), 1u);
    EXPECT_TRUE(contains(run.warnings[0], "'" + kernel + "'")) << run.warnings[0];
    // Halide's own OpenCL error path reported the driver's code.
    EXPECT_TRUE(contains(run.warnings[0], "CL_OUT_OF_RESOURCES")) << run.warnings[0];
}

TEST(Fallback, DisabledFallbackMakesTheFailureFinal) {
    for (const char *fault : {"compile", "launch"}) {
        Env env{{"SOLDER_INJECT_FAULT", fault}};
        AppBuildRequest r = opencl_request("rmsnorm", "solder");
        r.options.disable("fallback");
        AppRun run = build_and_run_app(r, one_run());
        EXPECT_FALSE(run.report.pass) << fault;
        EXPECT_EQ(run.report.fallback, "") << fault;
        EXPECT_TRUE(run.warnings.empty()) << fault;
        EXPECT_TRUE(
            contains(run.report.error, std::string(fault) == "compile" ? "injected failure" : "CL_OUT_OF_RESOURCES"))
            << run.report.error;
    }
}

TEST(Fallback, OnlySoldersScheduleFallsBack) {
    // The unfused schedule is the fallback itself; Halide's auto-schedulers are baselines whose
    // failures are reported as they are.
    Env env{{"SOLDER_INJECT_FAULT", "compile"}};
    for (const char *schedule : {"unfused", "li2018"}) {
        AppBuildRequest r = opencl_request("add_relu", schedule);
        AppRun run = build_and_run_app(r, one_run());
        EXPECT_FALSE(run.report.pass) << schedule;
        EXPECT_EQ(run.report.fallback, "") << schedule;
        EXPECT_TRUE(contains(run.report.error, "injected failure")) << run.report.error;
    }
}

TEST(Fallback, CliWarnsRunsTheFallbackAndPasses) {
    auto r = solder::testing::run_solder_cli("run rmsnorm --small --target opencl --schedule solder --iters 1",
                                             "SOLDER_INJECT_FAULT=launch");
    EXPECT_EQ(r.signal, 0);
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_TRUE(contains(r.err, "warning: rmsnorm: schedule 'solder' failed at run time")) << r.err;
    EXPECT_TRUE(contains(r.out, "fallback: ")) << r.out;
    EXPECT_TRUE(contains(r.out, "PASS")) << r.out;
}

TEST(Fallback, CliWithFallbackDisabledFails) {
    auto r = solder::testing::run_solder_cli(
        "run rmsnorm --small --target opencl --schedule solder --iters 1 --disable fallback",
        "SOLDER_INJECT_FAULT=launch");
    EXPECT_EQ(r.signal, 0);
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_TRUE(contains(r.out, "CL_OUT_OF_RESOURCES")) << r.out;
    EXPECT_TRUE(contains(r.out, "FAIL")) << r.out;
    EXPECT_FALSE(contains(r.err, "warning")) << r.err;
}
