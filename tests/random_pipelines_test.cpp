// Randomized differential test of the planner: random graphs mixing pointwise, broadcast,
// reduction and stencil stages (f32 and i32, 1-3 outputs), planned by Solder, applied, compiled
// and run, against values computed eagerly in double precision. 150 graphs on the host and 50 on
// OpenCL, in batches of 50 per compiled pipeline. `build/bin/solder-soak` runs any number.
#include <gtest/gtest.h>

#include "runtime/app_build.h"
#include "tests/support/random_graphs.h"

using namespace solder;

namespace {

struct Batch {
    std::string target;
    uint64_t first;
};

std::vector<uint64_t> seeds_of(const Batch &b) {
    std::vector<uint64_t> s;
    for (uint64_t i = 0; i < 50; i++) s.push_back(b.first + i);
    return s;
}

std::vector<Batch> batches() {
    std::vector<Batch> v;
    for (uint64_t k = 0; k < 3; k++) v.push_back({"host", 1 + 50 * k});
    v.push_back({"opencl", 100001});
    return v;
}

class RandomBatch : public ::testing::TestWithParam<Batch> {};

}  // namespace

TEST_P(RandomBatch, MatchesEagerReference) {
    auto r = solder::testing::run_random_batch(seeds_of(GetParam()), GetParam().target, default_out_dir());
    std::string msg;
    for (auto &m : r.messages) msg += m + "\n";
    EXPECT_TRUE(r.failed_seeds.empty()) << msg;
    std::printf("max planning time of one graph: %.1f ms\n", r.max_plan_ms);
}

INSTANTIATE_TEST_SUITE_P(Planner, RandomBatch, ::testing::ValuesIn(batches()),
                         [](const ::testing::TestParamInfo<Batch> &i) {
                             return i.param.target + "_from_" + std::to_string(i.param.first);
                         });

// The same kind of graphs against the unfused schedule (each Func a kernel of its own) as well as
// the eager reference: in batches of 5, as the unfused schedule compiles slowly with many Funcs.
class RandomAgainstUnfused : public ::testing::TestWithParam<Batch> {};

TEST_P(RandomAgainstUnfused, MatchesTheUnfusedSchedule) {
    const Batch &b = GetParam();
    std::vector<uint64_t> seeds;
    for (uint64_t i = 0; i < 5; i++) seeds.push_back(b.first + i);
    auto r = solder::testing::run_random_batch(seeds, b.target, default_out_dir(), true);
    std::string msg;
    for (auto &m : r.messages) msg += m + "\n";
    EXPECT_TRUE(r.failed_seeds.empty()) << msg;
}

std::vector<Batch> unfused_batches() {
    std::vector<Batch> v;
    for (uint64_t k = 0; k < 4; k++) v.push_back({"host", 5001 + 5 * k});
    for (uint64_t k = 0; k < 2; k++) v.push_back({"opencl", 205001 + 5 * k});
    return v;
}

INSTANTIATE_TEST_SUITE_P(Planner, RandomAgainstUnfused, ::testing::ValuesIn(unfused_batches()),
                         [](const ::testing::TestParamInfo<Batch> &i) {
                             return i.param.target + "_from_" + std::to_string(i.param.first);
                         });

// Seeds that once failed, kept as regression tests (one pipeline each, on the target it failed on).
TEST(RandomRegressions, KnownSeeds) {
    struct Seed {
        uint64_t seed;
        const char *target;
    };
    std::vector<Seed> seeds = {
#include "random_regression_seeds.inc"
    };
    for (auto s : seeds) {
        auto r = solder::testing::run_random_batch({s.seed}, s.target, default_out_dir());
        EXPECT_TRUE(r.failed_seeds.empty())
            << "seed " << s.seed << " on " << s.target << ": " << (r.messages.empty() ? "" : r.messages[0]);
    }
}
