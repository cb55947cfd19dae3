// Random sibling reductions (tests/support/random_sibling_reductions.h, autosched/sibling_sums.h):
// each seed planned for OpenCL (where the rewrite is taken) and for the host, run at the random
// families' sizes and compared with every Func at root on the host; on OpenCL each is also planned
// for CUDA and lowered. Most seeds' plans must take the rewrite on OpenCL (the test says how many),
// none on the host. SOLDER_SIBLING_SEEDS=N runs seeds 1 to N instead of the CI set.
#include <gtest/gtest.h>

#include <cstdio>

#include "tests/support/random_sibling_reductions.h"
#include "tests/support/seeds.h"

using namespace solder::testing;

namespace random_siblings {

std::vector<uint64_t> seeds() {
    return seeds_from_env("SOLDER_SIBLING_SEEDS", {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
}

TEST(RandomSiblingReductions, MatchEveryFuncAtRootOnOpenCL) {
    const std::vector<uint64_t> all = seeds();
    RandomSiblingResult r = run_random_sibling_reductions(all, "opencl");
    for (auto &m : r.messages) ADD_FAILURE() << m;
    EXPECT_TRUE(r.failed_seeds.empty());
    std::printf("%d of %zu seeds' plans walk their group together\n", r.rewritten, all.size());
    // Every group shares its load: the rewrite must take most of them.
    EXPECT_GE(r.rewritten * 4, int(all.size()) * 3) << r.rewritten << " of " << all.size() << " seeds rewritten";
}

TEST(RandomSiblingReductions, MatchEveryFuncAtRootOnHost) {
    RandomSiblingResult r = run_random_sibling_reductions(seeds(), "host");
    for (auto &m : r.messages) ADD_FAILURE() << m;
    EXPECT_TRUE(r.failed_seeds.empty());
    EXPECT_EQ(r.rewritten, 0);  // (a GPU rewrite)
}

}  // namespace random_siblings
