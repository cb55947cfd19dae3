// Bounded fuzzing of what users type and pass: plugin parameters and knob words, CLI arguments,
// numbers, and buffers of random shapes and types handed to a compiled library. Each input must
// give a result or one clear error (std::invalid_argument, UnknownNameError, a Halide error code
// with a message); no crash, no abort, no other exception. Deterministic (fixed seeds), a few
// seconds in CI; SOLDER_FUZZ_ROUNDS=N runs N rounds of each instead.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "apps/app_pipeline.h"
#include "autosched/model/options.h"
#include "cli/args.h"
#include "runtime/compile_cache.h"
#include "runtime/pipeline_library.h"
#include "core/unknown_name_error.h"
#include "tests/support/test_processes.h"

using namespace solder;

namespace {

int rounds(int ci_default) {
    const char *e = std::getenv("SOLDER_FUZZ_ROUNDS");
    return e ? std::atoi(e) : ci_default;
}

// A random token: valid words, near misses, numbers at and past the edges, and junk.
std::string token(std::mt19937 &rng) {
    static const std::vector<std::string> pool = {"horizontal",
                                                  "remat",
                                                  "compute_at",
                                                  "exact",
                                                  "single_kernel_groups",
                                                  "staging",
                                                  "fewest_bytes",
                                                  "parallelism",
                                                  "shared_memory_limit_kb",
                                                  "shared_memory_optin_kb",
                                                  "time_budget_ms",
                                                  "keep_unfused",
                                                  "fallback",
                                                  "fast_math",
                                                  "horizonta",
                                                  "REMAT",
                                                  "",
                                                  ",",
                                                  ",,",
                                                  "0",
                                                  "1",
                                                  "-1",
                                                  "2",
                                                  "true",
                                                  "false",
                                                  "abc",
                                                  "1e3",
                                                  "3.5",
                                                  " 7",
                                                  "7 ",
                                                  "0x10",
                                                  "2147483648",
                                                  "-9223372036854775808",
                                                  "99999999999999999999",
                                                  "--iters",
                                                  "--seed",
                                                  "--target",
                                                  "--small",
                                                  "--help",
                                                  "-h",
                                                  "--",
                                                  "--=",
                                                  "--iters=",
                                                  "--bogus",
                                                  "host",
                                                  "opencl",
                                                  "cuda",
                                                  "rmsnorm",
                                                  "add_relu",
                                                  "no_such_app",
                                                  "unfused",
                                                  "solder",
                                                  "li2018",
                                                  "\xff\xfe",
                                                  "a,b,c",
                                                  "mean_2",
                                                  "cast_0,pow_1"};
    std::string t = pool[rng() % pool.size()];
    if (rng() % 4 == 0) t += pool[rng() % pool.size()];
    if (rng() % 8 == 0 && !t.empty()) t[rng() % t.size()] = char(rng() % 256);
    return t;
}

}  // namespace

TEST(Fuzz, KnobsAndPluginParametersGiveAValueOrOneClearError) {
    std::mt19937 rng(1234);
    int accepted = 0, refused = 0;
    for (int i = 0; i < rounds(3000); i++) {
        SolderOptions opt;
        const std::string k = token(rng), v = token(rng);
        try {
            switch (i % 3) {
            case 0: opt.set(k, v); break;
            case 1: opt.disable(k + "," + v); break;
            default: opt.enable(v); break;
            }
            accepted++;
            // What was accepted is in range.
            EXPECT_GE(opt.planner.device.sms, 1);
            EXPECT_GE(opt.planner.time_budget_ms, 1);
            EXPECT_GE(opt.planner.device.shared_memory_bytes, 1024);
        } catch (const UnknownNameError &e) {
            refused++;
            EXPECT_NE(std::string(e.what()).find("valid"), std::string::npos) << e.what();
        } catch (const std::invalid_argument &e) {
            refused++;
            EXPECT_NE(std::string(e.what()).find("got '"), std::string::npos) << e.what();
        }
    }
    EXPECT_GT(accepted, 0);
    EXPECT_GT(refused, 0);
}

TEST(Fuzz, ArgumentsAndNumbersGiveAValueOrOneClearError) {
    std::mt19937 rng(99);
    for (int i = 0; i < rounds(3000); i++) {
        std::vector<std::string> words = {"solder", "run"};
        for (int n = int(rng() % 6); n > 0; n--) words.push_back(token(rng));
        std::vector<char *> argv;
        for (auto &w : words) argv.push_back(w.data());
        try {
            Args a = Args::parse(int(argv.size()), argv.data(), 2, {"iters", "seed", "target"}, {"small"});
            int64_t it = a.integer("iters", 10, 1, 1000000);
            EXPECT_GE(it, 1);
            EXPECT_LE(it, 1000000);
        } catch (const UsageError &) {
        } catch (const std::invalid_argument &e) {
            EXPECT_NE(std::string(e.what()).find("--iters"), std::string::npos) << e.what();
        }
    }
}

// The CLI as a user runs it, with random words after a command: exit 0, 1 or 2, never a signal.
TEST(Fuzz, CliNeverEndsBySignal) {
    std::mt19937 rng(7);
    const std::vector<std::string> commands = {"plan", "list", "knobs", "run", "build", "main", "bogus", "help"};
    int exits[3] = {0, 0, 0};
    for (int i = 0; i < rounds(40); i++) {
        std::string cmd = commands[rng() % commands.size()];
        std::string args = cmd;
        bool quick = cmd != "run" && cmd != "build" && cmd != "main";
        for (int n = int(rng() % 4); n > 0; n--) {
            std::string t = token(rng);
            std::string quoted;
            for (char c : t) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
            args += " '" + quoted + "'";
        }
        // Commands that compile get a word that stops them before any compilation, so the fuzz stays
        // quick; `plan` plans for real.
        if (!quick) args += " --iters 0";
        auto r = solder::testing::run_solder_cli(args);
        EXPECT_EQ(r.signal, 0) << args;
        EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1 || r.exit_code == 2) << args << " -> " << r.exit_code << r.err;
        if (r.exit_code == 2) {
            EXPECT_FALSE(r.err.empty()) << args;
        }
        if (r.exit_code >= 0 && r.exit_code <= 2) exits[r.exit_code]++;
    }
    // Both answers happen: some words are valid, most are not.
    EXPECT_GT(exits[0], 0);
    EXPECT_GT(exits[2], 0);
}

// Buffers of random ranks, extents, strides and types handed to a library: a message naming the
// buffer, or a run; never a crash.
TEST(Fuzz, LibraryCallsWithRandomBuffers) {
    AppBuildRequest req;
    req.app = "add_relu";
    req.schedule = "unfused";
    req.target = "host";
    req.size = AppSize::Small;
    req.out_dir = solder::testing::fresh_temp_dir("fuzz-lib");
    AppBuild b = CompileCache().build(req);
    std::string err;
    auto lib = PipelineLibrary::open(b.library_path, &err);
    ASSERT_TRUE(lib) << err;
    std::mt19937 rng(5);
    const std::vector<halide_type_t> types = {halide_type_of<float>(), halide_type_of<int32_t>(),
                                              halide_type_of<uint8_t>(), halide_type_of<double>()};
    int ran = 0;
    for (int i = 0; i < rounds(200); i++) {
        auto make = [&]() {
            int rank = int(rng() % 6);
            std::vector<int> shape;
            for (int d = 0; d < rank; d++) shape.push_back(1 + int(rng() % 40));
            return Halide::Runtime::Buffer<void>(types[rng() % types.size()], shape);
        };
        auto in = make(), out = make();
        std::string e;
        int rc = lib->call({in.raw_buffer()}, {out.raw_buffer()}, &e);
        if (rc == 0)
            ran++;
        else
            EXPECT_FALSE(e.empty());
    }
    // The right shapes still run.
    AppIO io = find_app_spec("add_relu")->io(AppSize::Small);
    auto in = make_host_buffer(io.inputs[0]), out = make_host_buffer(io.outputs[0]);
    std::string e;
    EXPECT_EQ(lib->call({in.raw_buffer()}, {out.raw_buffer()}, &e), 0) << e;
    (void)ran;
}
