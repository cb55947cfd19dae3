// The compile cache (runtime/compile_cache.h): the same request twice compiles once, every part of
// the key makes a miss, the LRU bound holds, failures are not kept, several threads asking for one
// key get one compilation, different keys compile side by side, and a library on disk is reused
// only when its recorded key matches. Counters prove what ran; every library that comes back is run
// and checked against the app's reference. Libraries built in one directory share one compiled
// Halide runtime per target.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <thread>

#include "apps/app_pipeline.h"
#include "runtime/app_runner.h"
#include "runtime/compile_cache.h"
#include "runtime/pipeline_fingerprint.h"
#include "tests/support/test_processes.h"

using namespace solder;
namespace fs = std::filesystem;

namespace {

AppBuildRequest request(const std::string &app, const std::string &schedule, const std::string &out_dir) {
    AppBuildRequest r;
    r.app = app;
    r.size = AppSize::Small;
    r.target = "host";
    r.schedule = schedule;
    r.out_dir = out_dir;
    return r;
}

// Loads the library and checks its outputs against the reference; "" when it passes.
std::string run_and_check(const AppBuild &b, const std::string &app) {
    std::string err;
    auto lib = PipelineLibrary::open(b.library_path, &err);
    if (!lib) return err;
    if (lib->info("app") != app) return b.library_path + " is a library of '" + lib->info("app") + "'";
    RunOptions opt;
    opt.size = AppSize::Small;
    opt.iters = 1;
    opt.warmup = 0;
    RunReport r = run_app(*find_app_spec(app), *lib, opt);
    if (!r.error.empty()) return r.error;
    return r.pass ? "" : app + ": outputs differ from the reference";
}

// One f32 input, one output: out(x) = in(x) * k, with fresh unnamed Funcs and Vars each time.
std::string scale_fingerprint(float k, int extent, const std::string &input_name) {
    Halide::ImageParam in(Halide::Float(32), 1, input_name);
    Halide::Var x;
    Halide::Func f;
    f(x) = in(x)*k;
    in.dim(0).set_estimate(0, extent);
    f.set_estimate(x, 0, extent);
    return pipeline_fingerprint({in}, {f});
}

// Starts `n` threads that call f(i) as close together as possible.
template<typename F> void in_threads(int n, F f) {
    std::atomic<int> ready{0};
    std::vector<std::thread> ts;
    for (int i = 0; i < n; i++)
        ts.emplace_back([&, i] {
            ready++;
            while (ready.load() < n) std::this_thread::yield();
            f(i);
        });
    for (auto &t : ts) t.join();
}

}  // namespace

TEST(Fingerprint, SameAlgorithmSameTextWhateverTheNames) {
    const AppSpec *app = find_app_spec("blur");
    BuiltPipeline a = build_app_pipeline(*app, AppSize::Small);
    BuiltPipeline b = build_app_pipeline(*app, AppSize::Small);
    // Halide names the second build's Funcs apart from the first's; the text must not see it.
    ASSERT_NE(a.outputs[0].name(), b.outputs[0].name());
    EXPECT_EQ(pipeline_fingerprint(a.inputs, a.outputs), pipeline_fingerprint(b.inputs, b.outputs));
    for (auto &spec : all_app_specs()) {
        BuiltPipeline x = build_app_pipeline(spec, AppSize::Small), y = build_app_pipeline(spec, AppSize::Small);
        EXPECT_EQ(pipeline_fingerprint(x.inputs, x.outputs), pipeline_fingerprint(y.inputs, y.outputs)) << spec.name;
    }
    EXPECT_EQ(scale_fingerprint(2.0f, 64, "in"), scale_fingerprint(2.0f, 64, "in"));
    EXPECT_EQ(scale_fingerprint(2.0f, 64, "in"), scale_fingerprint(2.0f, 64, "other_name"));
}

TEST(Fingerprint, AnyChangeToTheAlgorithmShowsUp) {
    std::string base = scale_fingerprint(2.0f, 64, "in");
    // The next float after 2: Halide's printer rounds both to "2.000000f"; the text must not.
    EXPECT_NE(base, scale_fingerprint(std::nextafter(2.0f, 3.0f), 64, "in"));
    EXPECT_NE(base, scale_fingerprint(2.0f, 65, "in"));
    const AppSpec *blur = find_app_spec("blur");
    BuiltPipeline small = build_app_pipeline(*blur, AppSize::Small), full = build_app_pipeline(*blur, AppSize::Full);
    EXPECT_NE(pipeline_fingerprint(small.inputs, small.outputs), pipeline_fingerprint(full.inputs, full.outputs));
    BuiltPipeline unsharp = build_app_pipeline(*find_app_spec("unsharp"), AppSize::Small);
    EXPECT_NE(pipeline_fingerprint(small.inputs, small.outputs), pipeline_fingerprint(unsharp.inputs, unsharp.outputs));
}

TEST(CompileCache, SameRequestTwiceCompilesOnce) {
    std::string dir = solder::testing::fresh_temp_dir("cache");
    CompileCache cache;
    AppBuild first = cache.build(request("rmsnorm", "solder", dir));
    AppBuild second = cache.build(request("rmsnorm", "solder", dir));  // fresh Funcs, same algorithm
    CompileCacheStats s = cache.stats();
    EXPECT_EQ(s.compilations, 1);
    EXPECT_EQ(s.misses, 1);
    EXPECT_EQ(s.hits, 1);
    EXPECT_EQ(first.library_path, second.library_path);
    EXPECT_EQ(second.plan, first.plan) << "a hit returns the first build, plan included";
    EXPECT_EQ(run_and_check(second, "rmsnorm"), "");
}

// Halide's runtime is compiled once per target and directory, and every library built there links
// that one object: a second app's build leaves it untouched, and each library still runs alone.
TEST(CompileCache, LibrariesOfOneDirectoryShareOneHalideRuntimePerTarget) {
    std::string dir = solder::testing::fresh_temp_dir("cache");
    auto runtimes = [&] {
        std::vector<fs::path> v;
        for (auto &e : fs::directory_iterator(dir))
            if (e.path().filename().string().rfind("halide_runtime-", 0) == 0) v.push_back(e.path());
        return v;
    };
    CompileCache cache;
    AppBuild relu = cache.build(request("add_relu", "solder", dir));
    ASSERT_EQ(runtimes().size(), 1u);
    const fs::path rt = runtimes()[0];
    EXPECT_NE(
        rt.filename().string().find(Halide::get_host_target().without_feature(Halide::Target::NoRuntime).to_string()),
        std::string::npos)
        << rt;
    const auto written = fs::last_write_time(rt);
    AppBuild norm = cache.build(request("rmsnorm", "unfused", dir));
    EXPECT_EQ(runtimes().size(), 1u);
    EXPECT_EQ(fs::last_write_time(rt), written) << "the second library compiled the runtime again";
    EXPECT_EQ(cache.stats().compilations, 2);
    EXPECT_EQ(run_and_check(relu, "add_relu"), "");
    EXPECT_EQ(run_and_check(norm, "rmsnorm"), "");
    AppBuildRequest cl = request("add_relu", "solder", dir);
    cl.target = "opencl";
    cache.build(cl);
    EXPECT_EQ(runtimes().size(), 2u) << "an OpenCL library needs a runtime of its own";
}

TEST(CompileCache, EveryPartOfTheKeyMisses) {
    std::string dir = solder::testing::fresh_temp_dir("cache");
    CompileCache cache;
    AppBuildRequest base = request("add_relu", "solder", dir);
    std::vector<AppBuildRequest> variants(6, base);
    variants[1].size = AppSize::Full;
    variants[2].target = "opencl";
    variants[3].schedule = "unfused";
    variants[4].out_dir = solder::testing::fresh_temp_dir("cache-other");
    variants[5].options.disable("remat");  // a planner knob
    std::set<std::string> paths;
    for (auto &r : variants) paths.insert(cache.build(r).library_path);
    EXPECT_EQ(cache.stats().compilations, 6);
    EXPECT_EQ(cache.stats().hits, 0);
    EXPECT_EQ(paths.size(), 6u) << "builds with different keys must not share a file";
    cache.build(base);  // still there, beside the one with the knob
    EXPECT_EQ(cache.stats().hits, 1);
    EXPECT_EQ(cache.stats().compilations, 6);
}

TEST(CompileCache, LeastRecentlyUsedIsEvicted) {
    std::string dir = solder::testing::fresh_temp_dir("cache");
    CompileCache cache(CompileCacheOptions{2, false});
    auto a = request("add_relu", "unfused", dir), b = request("bias_gelu", "unfused", dir),
         c = request("add_relu", "solder", dir);
    cache.build(a);
    cache.build(b);
    cache.build(a);  // hit: b is now the least recently used
    cache.build(c);  // evicts b
    EXPECT_EQ(cache.size(), 2u);
    EXPECT_EQ(cache.stats().evictions, 1);
    cache.build(a);  // still cached
    EXPECT_EQ(cache.stats().hits, 2);
    EXPECT_EQ(cache.stats().compilations, 3);
    AppBuild again = cache.build(b);  // was evicted: compiled again
    EXPECT_EQ(cache.stats().compilations, 4);
    EXPECT_EQ(run_and_check(again, "bias_gelu"), "");
}

TEST(CompileCache, CapacityZeroCompilesEveryTime) {
    std::string dir = solder::testing::fresh_temp_dir("cache");
    CompileCache cache(CompileCacheOptions{0, false});
    cache.build(request("add_relu", "unfused", dir));
    AppBuild b = cache.build(request("add_relu", "unfused", dir));
    EXPECT_EQ(cache.stats().compilations, 2);
    EXPECT_EQ(cache.stats().hits, 0);
    EXPECT_EQ(cache.size(), 0u);
    EXPECT_EQ(run_and_check(b, "add_relu"), "");
}

TEST(CompileCache, FailuresAreNotKept) {
    std::string dir = solder::testing::fresh_temp_dir("cache");
    CompileCache cache;
    AppBuildRequest r = request("add_relu", "solder", dir);
    r.inject_compile_fault = true;
    for (int i = 0; i < 2; i++) EXPECT_THROW(cache.build(r), std::runtime_error);
    EXPECT_EQ(cache.stats().compilations, 2);
    EXPECT_EQ(cache.size(), 0u);
    for (auto &e : fs::directory_iterator(dir)) ADD_FAILURE() << "a failed build left " << e.path() << " behind";
}

TEST(CompileCache, ManyThreadsOneKeyCompileOnce) {
    std::string dir = solder::testing::fresh_temp_dir("cache");
    CompileCache cache;
    const int n = 4;
    std::vector<std::string> paths(n), errors(n);
    in_threads(n, [&](int i) {
        try {
            paths[i] = cache.build(request("rmsnorm", "solder", dir)).library_path;
        } catch (const std::exception &e) {
            errors[i] = e.what();
        }
    });
    for (int i = 0; i < n; i++) {
        EXPECT_EQ(errors[i], "");
        EXPECT_EQ(paths[i], paths[0]);
    }
    CompileCacheStats s = cache.stats();
    EXPECT_EQ(s.compilations, 1);
    EXPECT_EQ(s.misses, 1);
    EXPECT_EQ(s.hits, n - 1);
    EXPECT_EQ(s.peak_parallel, 1);
    AppBuild b;
    b.library_path = paths[0];
    EXPECT_EQ(run_and_check(b, "rmsnorm"), "");
}

TEST(CompileCache, ManyThreadsOneFailingKeyAllSeeTheError) {
    std::string dir = solder::testing::fresh_temp_dir("cache");
    CompileCache cache;
    const int n = 3;
    std::vector<std::string> errors(n);
    in_threads(n, [&](int i) {
        AppBuildRequest r = request("add_relu", "solder", dir);
        r.inject_compile_fault = true;
        try {
            cache.build(r);
        } catch (const std::exception &e) {
            errors[i] = e.what();
        }
    });
    for (auto &e : errors) EXPECT_NE(e.find("SOLDER_INJECT_FAULT=compile"), std::string::npos) << e;
    EXPECT_EQ(cache.size(), 0u);
}

TEST(CompileCache, DifferentKeysCompileSideBySide) {
    std::string dir = solder::testing::fresh_temp_dir("cache");
    CompileCache cache;
    struct Job {
        std::string app, schedule, target;
    };
    // li2018 forks a probe child, so it compiles alone (runtime/compile_cache.cpp); the rest share.
    const std::vector<Job> jobs = {{"add_relu", "unfused", "host"},
                                   {"bias_gelu", "solder", "host"},
                                   {"rmsnorm", "solder", "opencl"},
                                   {"blur", "unfused", "host"},
                                   {"add_relu", "li2018", "host"}};
    std::vector<AppBuild> builds(jobs.size());
    std::vector<std::string> errors(jobs.size());
    in_threads(int(jobs.size()), [&](int i) {
        AppBuildRequest r = request(jobs[i].app, jobs[i].schedule, dir);
        r.target = jobs[i].target;
        try {
            builds[i] = cache.build(r);
        } catch (const std::exception &e) {
            errors[i] = e.what();
        }
    });
    EXPECT_EQ(cache.stats().compilations, int64_t(jobs.size()));
    for (size_t i = 0; i < jobs.size(); i++) {
        ASSERT_EQ(errors[i], "") << jobs[i].app;
        EXPECT_EQ(run_and_check(builds[i], jobs[i].app), "") << jobs[i].app << " / " << jobs[i].schedule;
    }
}

TEST(CompileCache, DiskReuseOnlyWhenTheRecordedKeyMatches) {
    std::string dir = solder::testing::fresh_temp_dir("cache");
    const CompileCacheOptions disk{32, true};
    AppBuildRequest r = request("add_relu", "unfused", dir);
    std::string path;
    {
        CompileCache first(disk);
        path = first.build(r).library_path;
        EXPECT_EQ(first.stats().compilations, 1);
        EXPECT_EQ(first.stats().disk_hits, 0);
    }
    {
        CompileCache second(disk);  // a new process, as far as memory goes
        AppBuild b = second.build(r);
        EXPECT_EQ(second.stats().disk_hits, 1);
        EXPECT_EQ(second.stats().compilations, 0);
        EXPECT_EQ(b.library_path, path);
        EXPECT_GT(b.loop_nests, 0) << "read back from the library's info";
        EXPECT_EQ(run_and_check(b, "add_relu"), "");
    }
    // Another library at that path (another app's, so its recorded key differs): compiled over.
    AppBuild other = CompileCache().build(request("bias_gelu", "unfused", dir));
    fs::remove(path);  // a new file, not one rewritten in place under a mapping
    fs::copy_file(other.library_path, path);
    {
        CompileCache third(disk);
        AppBuild b = third.build(r);
        EXPECT_EQ(third.stats().disk_hits, 0);
        EXPECT_EQ(third.stats().compilations, 1);
        EXPECT_EQ(run_and_check(b, "add_relu"), "");
    }
    // Not a library at all: compiled over as well.
    fs::remove(path);
    std::ofstream(path) << "not a library";
    {
        CompileCache fourth(disk);
        AppBuild b = fourth.build(r);
        EXPECT_EQ(fourth.stats().compilations, 1);
        EXPECT_EQ(run_and_check(b, "add_relu"), "");
    }
    // Truncated (a disk filled up, a copy cut short): compiled over, never mapped (a bus error).
    fs::resize_file(path, 4096);
    {
        CompileCache fifth(disk);
        AppBuild b = fifth.build(r);
        EXPECT_EQ(fifth.stats().disk_hits, 0);
        EXPECT_EQ(fifth.stats().compilations, 1);
        EXPECT_EQ(run_and_check(b, "add_relu"), "");
    }
    // Damaged in place, its size kept: its checksum no longer matches.
    {
        std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(std::streamoff(fs::file_size(path) / 2));
        f.put('\x5a').put('\x5a').put('\x5a');
    }
    {
        CompileCache sixth(disk);
        AppBuild b = sixth.build(r);
        EXPECT_EQ(sixth.stats().disk_hits, 0);
        EXPECT_EQ(run_and_check(b, "add_relu"), "");
    }
    // Without the disk option a library on disk is never trusted.
    CompileCache memory_only;
    memory_only.build(r);
    EXPECT_EQ(memory_only.stats().compilations, 1);
    EXPECT_EQ(memory_only.stats().disk_hits, 0);
}

TEST(CompileCache, TruncatedLibrariesAreRefusedBeforeMapping) {
    std::string dir = solder::testing::fresh_temp_dir("cache-trunc");
    AppBuild b = CompileCache().build(request("add_relu", "unfused", dir));
    const std::string cut = dir + "/cut.so";
    for (uintmax_t size : {uintmax_t(0), uintmax_t(10), uintmax_t(4096), fs::file_size(b.library_path) - 1}) {
        fs::copy_file(b.library_path, cut, fs::copy_options::overwrite_existing);
        fs::resize_file(cut, size);
        std::string err;
        EXPECT_EQ(PipelineLibrary::open(cut, &err), nullptr) << size;
        EXPECT_NE(err.find("cut.so"), std::string::npos) << err;
    }
    std::string err;
    EXPECT_NE(PipelineLibrary::open(b.library_path, &err), nullptr) << err;
}

TEST(CompileCache, KeyHoldsTheKnobsButNotTheFallbackWord) {
    std::string dir = solder::testing::fresh_temp_dir("cache");
    AppBuildRequest r = request("add_relu", "solder", dir);
    BuiltPipeline p = build_app_funcs(r);
    const std::string plain = compile_cache_key(r, p);
    auto key_with = [&](auto change) {
        AppBuildRequest v = r;
        change(v.options);
        return compile_cache_key(v, p);
    };
    // A runtime knob about running, not compiling: the same library.
    EXPECT_EQ(key_with([](SolderOptions &o) { o.disable("fallback"); }), plain);
    const std::string knobs = key_with([](SolderOptions &o) { o.disable("remat,compute_at"); });
    EXPECT_NE(knobs, plain);
    // The same set of words, however written.
    EXPECT_EQ(key_with([](SolderOptions &o) { o.disable(",compute_at,remat,remat,"); }), knobs);
    EXPECT_NE(key_with([](SolderOptions &o) { o.set("keep_unfused", "relu_1"); }), plain);
    EXPECT_NE(key_with([](SolderOptions &o) { o.disable("fast_math"); }), plain);
    EXPECT_NE(key_with([](SolderOptions &o) { o.set("parallelism", "16"); }), plain);
    EXPECT_NE(key_with([](SolderOptions &o) { o.planner.exact_max_free = 8; }), plain) << "a field no knob sets";
}

// A scalar parameter's type and its estimate (the value the plan is made at) are part of the key;
// its name is not.
TEST(Fingerprint, ScalarParametersShowTheirTypeAndEstimate) {
    using namespace Halide;
    auto with_param = [](const std::string &name, double estimate, bool as_double) {
        ImageParam in(Float(32), 1, "in");
        in.dim(0).set_estimate(0, 64);
        Var x("x");
        Func f("f");
        Argument arg;
        if (as_double) {
            Param<double> p(name);
            p.set_estimate(estimate);
            f(x) = in(x)*cast<float>(p);
            arg = p;
        } else {
            Param<float> p(name);
            p.set_estimate(float(estimate));
            f(x) = in(x)*p;
            arg = p;
        }
        f.set_estimates({{0, 64}});
        return pipeline_fingerprint({in}, {f}, {arg});
    };
    EXPECT_EQ(with_param("sigma", 0.5, false), with_param("other", 0.5, false));
    EXPECT_NE(with_param("sigma", 0.5, false), with_param("sigma", 0.25, false));
    EXPECT_NE(with_param("sigma", 0.5, false), with_param("sigma", 0.5, true));
}
