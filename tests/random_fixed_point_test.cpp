// Random fixed-point pipelines (tests/support/random_fixed_point.h): Halide's integer intrinsics
// (widening and rounding arithmetic, saturating casts and adds, halving adds, absd,
// mul_shift_right, count_leading_zeros) in random chains of stencils, a downsample and a gain
// parameter over 8- and 16-bit images, each seed planned for OpenCL and for the host, run at the
// random families' sizes and compared exactly with every Func at root on the host; on OpenCL each
// is also planned for CUDA and lowered. SOLDER_FIXED_POINT_SEEDS=N runs seeds 1 to N instead of
// the CI set.
#include <gtest/gtest.h>

#include "tests/support/random_fixed_point.h"
#include "tests/support/seeds.h"

using namespace solder::testing;

namespace random_fixed_point {

std::vector<uint64_t> seeds() { return seeds_from_env("SOLDER_FIXED_POINT_SEEDS", {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}); }

TEST(RandomFixedPoint, MatchEveryFuncAtRootOnOpenCL) {
    RandomFixedPointResult r = run_random_fixed_point(seeds(), "opencl");
    for (auto &m : r.messages) ADD_FAILURE() << m;
    EXPECT_TRUE(r.failed_seeds.empty());
}

TEST(RandomFixedPoint, MatchEveryFuncAtRootOnHost) {
    RandomFixedPointResult r = run_random_fixed_point(seeds(), "host");
    for (auto &m : r.messages) ADD_FAILURE() << m;
    EXPECT_TRUE(r.failed_seeds.empty());
}

}  // namespace random_fixed_point
