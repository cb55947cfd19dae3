// Errors at run time and at the CLI, one test per case: each message names the thing that is wrong
// and what was expected, and the CLI exits non-zero (2 for an unknown name, 1 for a failure)
// instead of aborting. Missing estimates are covered in planner_test.cpp
// (Planner.MissingEstimatesNameTheFunc).
#include <gtest/gtest.h>

#include "autosched/model/func_graph.h"
#include "autosched/model/options.h"
#include "runtime/aot_compiler.h"
#include "runtime/app_runner.h"
#include "runtime/compile_cache.h"
#include "runtime/halide_error.h"
#include "runtime/targets.h"
#include "core/unknown_name_error.h"
#include "runtime/schedule_registry.h"
#include "tests/support/test_processes.h"

using namespace solder;
using solder::testing::contains;

namespace {

// add_relu at its reduced size on the host: one input x and one output out, both f32.
struct Loaded {
    AppIO io;
    std::unique_ptr<PipelineLibrary> lib;
    std::vector<HostBuffer> ins, outs;

    Loaded() {
        AppBuildRequest r;
        r.app = "add_relu";
        r.size = AppSize::Small;
        AppBuild b = build_app_library_cached(r);
        std::string err;
        lib = PipelineLibrary::open(b.library_path, &err);
        if (!lib) throw std::runtime_error(err);
        io = find_app_spec("add_relu")->io(AppSize::Small);
        for (auto &t : io.inputs) ins.push_back(make_host_buffer(t));
        for (auto &t : io.outputs) outs.push_back(make_host_buffer(t));
    }
    // Calls the pipeline; returns the error message ("" on success).
    std::string call() {
        std::vector<halide_buffer_t *> i, o;
        for (auto &b : ins) i.push_back(b.raw_buffer());
        for (auto &b : outs) o.push_back(b.raw_buffer());
        std::string err;
        int rc = lib->call(i, o, &err);
        return rc == 0 ? "" : err.empty() ? "error code without a message" : err;
    }
};

TensorSpec with_shape(TensorSpec t, Shape s) {
    t.shape = std::move(s);
    return t;
}

}  // namespace

namespace {

struct CliErrorCase {
    std::string args, env, message;
};

// Each command exits with 2 and `message` on stderr, before running anything (no PASS), and no
// signal ends it.
void expect_cli_errors(const std::vector<CliErrorCase> &cases) {
    for (auto &c : cases) {
        auto r = solder::testing::run_solder_cli(c.args, c.env);
        EXPECT_EQ(r.signal, 0) << c.args;
        EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.out << r.err;
        EXPECT_TRUE(contains(r.err, c.message)) << c.args << ": " << r.err;
        EXPECT_FALSE(contains(r.out, "PASS")) << c.args << ": " << r.out;
    }
}

}  // namespace

TEST(RuntimeErrors, RightBuffersRun) {
    Loaded l;
    EXPECT_EQ(l.call(), "");
}

TEST(RuntimeErrors, WrongInputShapeNamesTheBufferAndBothShapes) {
    Loaded l;
    Shape s = l.io.inputs[0].shape;
    int64_t want = s.back();
    s.back() = want * 2;  // the innermost axis: Halide's dimension 0
    l.ins[0] = make_host_buffer(with_shape(l.io.inputs[0], s));
    std::string e = l.call();
    EXPECT_TRUE(contains(e, "input buffer '" + l.io.inputs[0].name + "'")) << e;
    EXPECT_TRUE(contains(e, "dimension 0 has min 0, extent " + std::to_string(want * 2))) << e;
    EXPECT_TRUE(contains(e, "compiled for min 0, extent " + std::to_string(want))) << e;
}

TEST(RuntimeErrors, WrongOutputShapeNamesTheBufferAndBothShapes) {
    Loaded l;
    Shape s = l.io.outputs[0].shape;
    int64_t want = s.front();
    s.front() = want - 1;  // the outermost axis: the last Halide dimension
    l.outs[0] = make_host_buffer(with_shape(l.io.outputs[0], s));
    std::string e = l.call();
    EXPECT_TRUE(contains(e, "output buffer '")) << e;
    EXPECT_TRUE(
        contains(e, "dimension " + std::to_string(s.size() - 1) + " has min 0, extent " + std::to_string(want - 1)))
        << e;
    EXPECT_TRUE(contains(e, "extent " + std::to_string(want))) << e;
}

TEST(RuntimeErrors, WrongDimensionCountNamesTheBuffer) {
    Loaded l;
    Shape s = l.io.inputs[0].shape;
    s.insert(s.begin(), 1);
    l.ins[0] = make_host_buffer(with_shape(l.io.inputs[0], s));
    std::string e = l.call();
    EXPECT_TRUE(contains(e, "input buffer '" + l.io.inputs[0].name + "'")) << e;
    EXPECT_TRUE(contains(e, "has " + std::to_string(s.size()) + " dimensions but the pipeline expects " +
                                std::to_string(s.size() - 1)))
        << e;
}

TEST(RuntimeErrors, WrongBufferTypeNamesTheBufferAndBothTypes) {
    Loaded l;
    TensorSpec t = l.io.inputs[0];
    t.dtype = DType::I32;  // same size as f32: only the type tells them apart
    l.ins[0] = make_host_buffer(t);
    std::string e = l.call();
    EXPECT_TRUE(contains(e, "input buffer '" + t.name + "'")) << e;
    EXPECT_TRUE(contains(e, "has type int32 but the pipeline expects float32")) << e;
}

TEST(RuntimeErrors, UnknownNamesInTheLibraryApi) {
    AppBuildRequest r;
    r.size = AppSize::Small;
    auto expect = [&](AppBuildRequest req, std::initializer_list<std::string> parts) {
        try {
            build_app_library_cached(req);
            ADD_FAILURE() << "no error";
        } catch (const UnknownNameError &e) {
            for (auto &p : parts) EXPECT_TRUE(contains(e.what(), p)) << e.what();
        }
    };
    AppBuildRequest bad = r;
    bad.app = "no_such_app";
    expect(bad, {"unknown app 'no_such_app'", "add_relu"});
    bad = r;
    bad.app = "add_relu";
    bad.schedule = "no_such_schedule";
    expect(bad, {"unknown schedule 'no_such_schedule'", "unfused", "solder"});
    bad.schedule = "unfused";
    bad.target = "no_such_target";
    expect(bad, {"unknown target 'no_such_target'", "host, opencl, cuda"});
    SolderOptions opt;
    EXPECT_THROW(opt.disable("remat,no_such_word"), UnknownNameError);
}

TEST(RuntimeErrors, ExternStageIsPlannedAroundAndNamed) {
    Halide::ImageParam in(Halide::Float(32), 1, "in");
    Halide::Func ext("opaque_extern_stage"), out("after_extern");
    ext.define_extern("some_c_function", {in}, Halide::Float(32), 1);
    Halide::Var x;
    out(x) = ext(x) + 1.0f;
    in.dim(0).set_estimate(0, 64);
    out.set_estimate(x, 0, 64);
    auto applied = with_halide_errors(
        "test", [&] { return find_schedule("solder")->apply({out}, Halide::get_host_target(), {}); });
    ASSERT_TRUE(applied.plan);
    const std::string text = applied.plan->to_text();
    EXPECT_TRUE(contains(text, "opaque_extern_stage")) << text;
    EXPECT_TRUE(contains(text, "extern stage")) << text;
    EXPECT_FALSE(contains(text, "[generic]")) << text;  // (its reader is fused as any other Func)
}

// A Solder library damaged on disk is refused before it is mapped: the disk cache compiles over it,
// solder-exec names it. Neither ends by a signal.
TEST(RuntimeErrors, TruncatedCachedLibraryIsCompiledOverAndNamedBySolderExec) {
    const std::string dir = solder::testing::fresh_temp_dir("truncated");
    const std::string env = "SOLDER_CACHE_DISK=1 SOLDER_OUT_DIR=" + dir;
    auto first = solder::testing::run_solder_cli("run rmsnorm --small --target host --iters 1", env);
    ASSERT_EQ(first.exit_code, 0) << first.err;
    std::string so;
    for (auto &e : std::filesystem::directory_iterator(dir))
        if (e.path().extension() == ".so") so = e.path().string();
    ASSERT_FALSE(so.empty());
    std::filesystem::resize_file(so, 4096);
    auto again = solder::testing::run_solder_cli("run rmsnorm --small --target host --iters 1", env);
    EXPECT_EQ(again.signal, 0);
    EXPECT_EQ(again.exit_code, 0) << again.err;
    EXPECT_TRUE(contains(again.out, "PASS")) << again.out;
    std::filesystem::resize_file(so, 4096);
    std::string log = dir + "/exec.log";
    int st = std::system(("exec '" + std::string(SOLDER_EXEC) + "' '" + so + "' >'" + log + "' 2>&1").c_str());
    EXPECT_TRUE(WIFEXITED(st)) << "solder-exec ended by a signal";
    EXPECT_EQ(WEXITSTATUS(st), 1);
    EXPECT_TRUE(contains(solder::testing::read_file(log), "truncated")) << solder::testing::read_file(log);
    std::filesystem::remove_all(dir);
}

// Knob words, plugin-style parameters and CLI numbers: each bad value is one error that names the
// argument and the value, before anything runs; none is turned into a fallback.
TEST(RuntimeErrors, BadKnobsAndNumbersAreErrorsNamingThem) {
    expect_cli_errors({
        {"run rmsnorm --small --enable bogus", "", "unknown word 'bogus' in SOLDER_ENABLE"},
        {"run rmsnorm --small --iters abc", "", "--iters must be a whole number from 1 to 1000000, got 'abc'"},
        {"run rmsnorm --small --iters -1", "", "--iters must be a whole number"},
        {"run rmsnorm --small --seed 1x", "", "--seed must be a whole number"},
        {"plan rmsnorm --enable bogus", "", "unknown word 'bogus'"},
        {"plan rmsnorm", "SOLDER_KEEP_UNFUSED=no_such_func", "keep_unfused names 'no_such_func'"},
        {"run rmsnorm --small", "SOLDER_KEEP_UNFUSED=no_such_func", "keep_unfused names 'no_such_func'"},
    });
    SolderOptions opt;
    auto knob_error = [&](const std::string &k, const std::string &v) {
        try {
            opt.set(k, v);
        } catch (const std::exception &e) {
            return std::string(e.what());
        }
        return std::string();
    };
    for (std::string v : {"-1", "0", "abc", "", "3.5", "99999999999999999999"})
        EXPECT_TRUE(contains(knob_error("parallelism", v), "autoscheduler.parallelism must be a whole number")) << v;
    EXPECT_TRUE(contains(knob_error("time_budget_ms", "-5"), "autoscheduler.time_budget_ms")) << "-5";
    EXPECT_TRUE(contains(knob_error("horizontal", "2"), "must be 0 or 1"));
    std::string unknown = knob_error("parallelsim", "8");
    EXPECT_TRUE(contains(unknown, "unknown word 'parallelsim' in autoscheduler.parallelsim")) << unknown;
    EXPECT_TRUE(contains(unknown, "parallelism")) << unknown;
    EXPECT_EQ(knob_error("parallelism", "16"), "");
    EXPECT_EQ(opt.planner.device.sms, 16);
}

// Every command and tool answers --help with its usage, exit 0.
TEST(RuntimeErrors, HelpOnEveryCommandAndTool) {
    for (std::string cmd :
         {"--help", "help", "run --help", "plan --help", "build --help", "main --help", "list -h", "knobs --help"}) {
        auto r = solder::testing::run_solder_cli(cmd);
        EXPECT_EQ(r.exit_code, 0) << cmd << r.err;
        EXPECT_TRUE(contains(r.out, "--schedules")) << cmd << ": " << r.out;
        EXPECT_TRUE(contains(r.out, "knobs")) << cmd;
    }
    const std::vector<std::pair<std::string, std::string>> tools = {
        {SOLDER_EXEC, "--iters"}, {SOLDER_SOAK, "--family"}, {SOLDER_PLAN_TIME, "--sizes"}};
    for (auto &[tool, option] : tools) {
        std::string log = solder::testing::fresh_temp_dir("help") + "/out";
        int st = std::system(("'" + tool + "' --help >'" + log + "' 2>&1").c_str());
        EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << tool;
        EXPECT_TRUE(contains(solder::testing::read_file(log), option)) << tool;
    }
}

// solder-soak --timeout runs each batch in a child (--jobs of them at once): a seed that hangs or
// crashes the process is a failed seed with the reason, and the other seeds still run.
TEST(RuntimeErrors, SoakReportsAHungOrCrashedSeedAndGoesOn) {
    using solder::testing::run_tool;
    // (Two children at a time: the hung one does not hold up the others.)
    auto hung = run_tool(SOLDER_SOAK, "4 --start 1 --batch 1 --timeout 2 --jobs 2", "SOLDER_SOAK_FAULT=hang:2");
    EXPECT_EQ(hung.exit_code, 1) << hung.out << hung.err;
    EXPECT_TRUE(contains(hung.err, "FAIL seed 2: timed out after 2 s")) << hung.err;
    EXPECT_TRUE(contains(hung.err, "[soak] 4/4 graphs, 1 failed")) << hung.err;
    EXPECT_TRUE(contains(hung.out, "4 graphs, 1 failed")) << hung.out;
    EXPECT_TRUE(contains(hung.out, "failed seeds: 2\n")) << hung.out;
    auto crashed = run_tool(SOLDER_SOAK, "2 --start 1 --batch 1 --timeout 60", "SOLDER_SOAK_FAULT=crash:1");
    EXPECT_EQ(crashed.exit_code, 1) << crashed.out << crashed.err;
    EXPECT_TRUE(contains(crashed.err, "FAIL seed 1: the process died of signal 6")) << crashed.err;
    EXPECT_TRUE(contains(crashed.out, "2 graphs, 1 failed")) << crashed.out;
    auto bad = run_tool(SOLDER_SOAK, "1 --timeout 5", "SOLDER_SOAK_FAULT=stall:1");
    EXPECT_TRUE(contains(bad.err, "SOLDER_SOAK_FAULT must be hang:SEED or crash:SEED")) << bad.err;
}

TEST(RuntimeErrors, CliUnknownNamesExitWithTwoAndTheMessage) {
    expect_cli_errors({
        {"run no_such_app --small", "", "unknown app 'no_such_app'"},
        {"run add_relu --small --schedule no_such_schedule", "", "unknown schedule 'no_such_schedule'"},
        {"run add_relu --small --target no_such_target", "", "unknown target 'no_such_target'"},
        {"run add_relu --small --disable no_such_word", "", "unknown word 'no_such_word' in SOLDER_DISABLE"},
        {"run add_relu --small", "SOLDER_DISABLE=no_such_word", "unknown word 'no_such_word' in SOLDER_DISABLE"},
        {"run add_relu --small", "SOLDER_INJECT_FAULT=no_such_fault", "unknown SOLDER_INJECT_FAULT value"},
        {"build no_such_app --small", "", "unknown app 'no_such_app'"},
        {"plan no_such_app", "", "unknown app 'no_such_app'"},
        {"plan add_relu --target no_such_target", "", "unknown target 'no_such_target'"},
    });
}

TEST(RuntimeErrors, CliFailureExitsWithOneAndTheMessage) {
    // anderson2021 schedules GPUs only: a request that is well-formed but cannot be done.
    auto r = solder::testing::run_solder_cli("build add_relu --small --target host --schedule anderson2021");
    EXPECT_EQ(r.signal, 0);
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_TRUE(contains(r.err, "schedule 'anderson2021' is not available for target 'host'")) << r.err;
}

// SOLDER_HALIDE_FEATURES adds Halide target features to every build (debug: the runtime's per-call
// log); a name Halide does not know is an unknown-name error that names it.
TEST(RuntimeErrors, HalideFeaturesKnobAddsFeaturesAndNamesUnknownOnes) {
    ASSERT_EQ(setenv("SOLDER_HALIDE_FEATURES", "debug,profile", 1), 0);
    Halide::Target t = make_target("cuda");
    EXPECT_TRUE(t.has_feature(Halide::Target::CUDA));
    EXPECT_TRUE(t.has_feature(Halide::Target::Debug));
    EXPECT_TRUE(t.has_feature(Halide::Target::Profile));
    ASSERT_EQ(setenv("SOLDER_HALIDE_FEATURES", "debug,no_such_feature", 1), 0);
    std::string e;
    try {
        make_target("host");
    } catch (const UnknownNameError &x) {
        e = x.what();
    }
    EXPECT_TRUE(contains(e, "'no_such_feature' is not a Halide target feature")) << e;
    ASSERT_EQ(unsetenv("SOLDER_HALIDE_FEATURES"), 0);
    EXPECT_FALSE(make_target("cuda").has_feature(Halide::Target::Debug));
}

// A library with scalar parameters takes their values by name, in the type the library declares,
// and names a parameter the caller did not give.
TEST(RuntimeErrors, ScalarParametersArePassedByNameAndAMissingOneIsNamed) {
    using namespace Halide;
    ImageParam in(Float(32), 1, "in");
    Param<float> gain("gain");
    Param<int> offset("offset");
    Var x("x");
    Func f("f");
    f(x) = in(x)*gain + cast<float>(offset);
    LibraryRequest r;
    r.pipeline = Pipeline(f);
    r.arguments = {in, gain, offset};
    r.target = make_target("host");
    r.out_dir = solder::testing::fresh_temp_dir("scalar-params");
    r.stem = "scalars";
    std::string err;
    auto lib = PipelineLibrary::open(compile_pipeline_library(r), &err);
    ASSERT_TRUE(lib) << err;
    Runtime::Buffer<float> a(5), o(5);
    for (int i = 0; i < 5; i++) a(i) = float(i);
    ASSERT_EQ(lib->call({a.raw_buffer()}, {o.raw_buffer()}, &err, {{"offset", 3}, {"gain", 0.5}}), 0) << err;
    for (int i = 0; i < 5; i++) EXPECT_EQ(o(i), 0.5f * float(i) + 3.0f);
    EXPECT_NE(lib->call({a.raw_buffer()}, {o.raw_buffer()}, &err, {{"gain", 0.5}}), 0);
    EXPECT_TRUE(contains(err, "'offset'") && contains(err, "no value")) << err;
}
