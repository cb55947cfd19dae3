// Solder's options as one value (autosched/model/options.h): one parser for the environment, the
// CLI's --disable/--enable and the plugin's autoscheduler.KEY=VALUE parameters, with one message
// for an unknown word and one for a bad value whichever way they came; the value travels from the
// CLI to the planner and into the compile cache's key; and no program code sets the environment to
// pass options along.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "autosched/model/options.h"
#include "core/unknown_name_error.h"
#include "runtime/compile_cache.h"
#include "tests/support/test_processes.h"

using namespace solder;
using solder::testing::contains;
using solder::testing::run_solder_cli;

namespace {

// What `f` throws: "unknown name: MESSAGE", "bad value: MESSAGE", or "" when it throws nothing.
template<typename F> std::string error_of(F f) {
    try {
        f();
    } catch (const UnknownNameError &e) {
        return std::string("unknown name: ") + e.what();
    } catch (const std::invalid_argument &e) {
        return std::string("bad value: ") + e.what();
    }
    return "";
}

// One environment variable for a scope: tests may set the environment to check that it is read.
struct ScopedEnv {
    ScopedEnv(const char *name, const std::string &value) : name(name) { setenv(name, value.c_str(), 1); }
    ~ScopedEnv() { unsetenv(name); }
    const char *name;
};

AppBuildRequest host_request(const std::string &app, const std::string &out_dir) {
    AppBuildRequest r;
    r.app = app;
    r.size = AppSize::Small;
    r.target = "host";
    r.schedule = "solder";
    r.out_dir = out_dir;
    return r;
}

}  // namespace

TEST(Options, OneBadWordGivesOneErrorFromTheEnvironmentTheFlagsAndThePlugin) {
    const std::string word = "no_such_word";
    const std::string from_env = error_of([&] {
        ScopedEnv env("SOLDER_DISABLE", "remat," + word);
        SolderOptions::from_environment();
    });
    const std::string from_flag = error_of([&] { SolderOptions().disable(word); });
    // What the plugin calls for autoscheduler.KEY=VALUE (autosched/plugin.cpp adds "Solder: ").
    const std::string from_plugin = error_of([&] { SolderOptions().set(word, "1"); });
    EXPECT_EQ(from_env,
              "unknown name: unknown word 'no_such_word' in SOLDER_DISABLE / --disable (valid: horizontal, "
              "remat, compute_at, exact, single_kernel_groups, reduction_members, staging, fewest_bytes, side_outputs, "
              "shared_reductions, one_pass_deviations, sibling_reductions, cloned_reductions, computed_bins, "
              "transposed_tiles, "
              "register_tiles, "
              "window_tiles, contraction_tiles, cell_threads, "
              "fallback, fast_math)");
    EXPECT_EQ(from_flag, from_env);
    // The same message, naming what was written, listing what that way takes: every knob but the
    // runtime's two.
    EXPECT_EQ(from_plugin,
              "unknown name: unknown word 'no_such_word' in autoscheduler.no_such_word (valid: "
              "horizontal, remat, compute_at, exact, single_kernel_groups, reduction_members, staging, fewest_bytes, "
              "side_outputs, "
              "shared_reductions, one_pass_deviations, sibling_reductions, cloned_reductions, computed_bins, "
              "transposed_tiles, "
              "register_tiles, "
              "window_tiles, contraction_tiles, "
              "cell_threads, parallelism, "
              "shared_memory_limit_kb, "
              "shared_memory_optin_kb, "
              "time_budget_ms, "
              "keep_unfused)");
    const std::string enabled = error_of([&] {
        ScopedEnv env("SOLDER_ENABLE", word);
        SolderOptions::from_environment();
    });
    EXPECT_EQ(enabled, error_of([&] { SolderOptions().enable(word); }));
    EXPECT_TRUE(contains(enabled, "in SOLDER_ENABLE / --enable (valid: horizontal, ")) << enabled;

    // The CLI prints the parser's message as it is, from the flag and from the environment alike.
    const std::string message = from_flag.substr(std::string("unknown name: ").size());
    const std::vector<std::pair<std::string, std::string>> cli = {
        {"run add_relu --small --disable " + word, ""},
        {"run add_relu --small", "SOLDER_DISABLE=" + word},
        {"plan add_relu --disable " + word, ""},
        {"build add_relu --small", "SOLDER_DISABLE=" + word},
    };
    for (auto &[args, env] : cli) {
        auto r = run_solder_cli(args, env);
        EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
        EXPECT_TRUE(contains(r.err, ": error: " + message + "\n")) << args << ": " << r.err;
    }
}

TEST(Options, OneBadValueGivesOneErrorNamingTheKnobAndTheValue) {
    EXPECT_EQ(error_of([] { SolderOptions().set("parallelism", "abc"); }),
              "bad value: autoscheduler.parallelism must be a whole number from 1 to 100000, got 'abc'");
    EXPECT_EQ(error_of([] { SolderOptions().set("horizontal", "2"); }),
              "bad value: autoscheduler.horizontal must be 0 or 1 (or true, false), got '2'");
    // The plugin takes no runtime knob: it neither runs a pipeline nor rewrites its math.
    EXPECT_TRUE(contains(error_of([] { SolderOptions().set("fast_math", "0"); }), "unknown word 'fast_math'"));
    EXPECT_EQ(error_of([] { SolderOptions().set("parallelism", "16"); }), "");
}

TEST(Options, TheEnvironmentAndTheFlagsMakeTheSameValue) {
    SolderOptions env;
    {
        ScopedEnv d("SOLDER_DISABLE", "remat,fallback"), e("SOLDER_ENABLE", "staging"), k("SOLDER_KEEP_UNFUSED", "b,a");
        env = SolderOptions::from_environment();
    }
    SolderOptions flags;
    flags.disable("fallback,,remat");
    flags.enable("staging");
    flags.set("keep_unfused", "a,b,a");
    EXPECT_FALSE(env.fallback);
    EXPECT_FALSE(env.planner.remat);
    EXPECT_TRUE(env.planner.stage_rows);
    EXPECT_EQ(env.planner.keep_unfused, (std::set<std::string>{"a", "b"}));
    EXPECT_EQ(env.canonical_text(), flags.canonical_text());
    EXPECT_NE(env.canonical_text(), SolderOptions().canonical_text());
    EXPECT_TRUE(SolderOptions::from_environment().fallback) << "read again: the environment is as it was";

    // Through the CLI: the flags go on top of the environment, and reach the planner of a run
    // (rmsnorm with compute_at off stores its mean: two Funcs at root on the host).
    const std::string out = "SOLDER_OUT_DIR=" + solder::testing::fresh_temp_dir("options-cli") + " ";
    auto plain = run_solder_cli("run rmsnorm --small --iters 1", out);
    auto off = run_solder_cli("run rmsnorm --small --iters 1 --disable compute_at", out);
    auto back_on =
        run_solder_cli("run rmsnorm --small --iters 1 --enable compute_at", out + "SOLDER_DISABLE=compute_at");
    for (auto *r : {&plain, &off, &back_on}) EXPECT_EQ(r->exit_code, 0) << r->out << r->err;
    EXPECT_TRUE(contains(plain.out, " 1 Funcs at root")) << plain.out;
    EXPECT_TRUE(contains(off.out, " 2 Funcs at root")) << off.out;
    EXPECT_TRUE(contains(back_on.out, " 1 Funcs at root")) << back_on.out;
}

TEST(Options, DifferentOptionsBuildDifferentLibrariesAndTheSameOptionsReuseOne) {
    const std::string dir = solder::testing::fresh_temp_dir("options-cache");
    CompileCache cache;
    const AppBuildRequest plain = host_request("rmsnorm", dir);
    AppBuildRequest off = plain;
    off.options.disable("compute_at");
    AppBuildRequest same = plain;  // the defaults, written another way
    same.options.disable("compute_at,fallback");
    same.options.enable("fallback,compute_at");

    BuiltPipeline p = build_app_funcs(plain);
    EXPECT_NE(compile_cache_key(plain, p), compile_cache_key(off, p));
    EXPECT_EQ(compile_cache_key(plain, p), compile_cache_key(same, p));

    AppBuild a = cache.build(plain), b = cache.build(off), c = cache.build(same);
    EXPECT_NE(a.library_path, b.library_path);
    EXPECT_EQ(a.library_path, c.library_path);
    ASSERT_TRUE(a.plan && b.plan);
    EXPECT_NE(a.plan->to_text(), b.plan->to_text()) << "the options reached the planner";
    EXPECT_EQ(cache.stats().compilations, 2);
    EXPECT_EQ(cache.stats().hits, 1);
    std::filesystem::remove_all(dir);
}

// Options travel as a value; setting the environment to pass them down is what this replaced.
TEST(Options, NoProgramCodeSetsTheEnvironment) {
    const std::string src = SOLDER_SOURCE_DIR;
    if (std::system(("git -C '" + src + "' rev-parse --git-dir >/dev/null 2>&1").c_str()) != 0)
        GTEST_SKIP() << src << " is not a git checkout";
    const std::string log = solder::testing::fresh_temp_dir("setenv") + "/grep";
    const int st = std::system(("cd '" + src +
                                "' && git grep --untracked -n setenv -- cli runtime autosched schedules "
                                "lang core apps bench >'" +
                                log + "' 2>&1")
                                   .c_str());
    ASSERT_TRUE(WIFEXITED(st));
    // git grep: 0 when it found something, 1 when not, more on an error.
    EXPECT_EQ(WEXITSTATUS(st), 1) << solder::testing::read_file(log);
}
