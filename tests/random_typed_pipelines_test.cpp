// Random pipelines over 8- and 16-bit images (tests/support/random_typed_pipelines.h), scheduled by
// Solder and compared with every Func at root: exactly for the integer ones, on the host and on
// OpenCL (where each is also planned for CUDA and lowered), at the estimated size and at others.
// SOLDER_TYPED_SEEDS=N runs seeds 1 to N instead of the CI set; the soak command runs more
// (solder-soak N --family typed).
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <vector>

#include "tests/support/random_typed_pipelines.h"
#include "tests/support/seeds.h"

using namespace solder::testing;

namespace {

// CI's seeds: four of the first sixty that between them reach every kind of stage and every
// image type; seed 6, an 8-bit pyramid level read back at x / 2, which aborted LLVM's NVPTX code
// generator when vectorized for CUDA (autosched/model/pipeline_funcs.h: loads_narrow_shuffled); and
// seed 36, two outputs written beside an 8-bit preview's kernel, one reading the other, which
// Halide refused (the preview read the first through the second's copy: clone_for_readers, in
// schedules/writer/schedule_writer.h); and seed 94, whose row kernel shares its row means with a
// row argmax's kernel through a stage only that kernel reads: its copy for every caller left the
// stage in Halide's environment, called by none, and lowering failed an internal assertion
// (schedules/row/shared_reductions.cpp); and seed 201, two float16 lookup tables launched together
// (horizontal fusion) on OpenCL without cl_half, where their kernel had to run on the host and
// could not: PoCL refused it (autosched/apply_plan.h: launches_needing_host); and seeds 835 and
// 846, a row mean computed per block of a row kernel that reads it through a 2 x 2 resampling (two
// or three rows a block) or a mirrored stencil (one): planned for CUDA, Halide bounded the
// threads over its rows by the whole image's, 1536 a block at 2048 x 1536
// (schedules/writer/block_reduce.cpp: block_level's thread_extent); and seed 1079, the same bound
// where the row kernel reading the mean through a mirror shared it with other kernels
// (schedules/row/shared_reductions.h: read_through_moving_indices); and seed 1629, a 12-bit image's
// planar channels upsampled at 2 * (x / 2) in kernels whose 8-lane 16-bit vectors LLVM's NVPTX
// code generator had not finished compiling after 20 minutes (pipeline_funcs.h:
// loads_narrow_shuffled: such Funcs are now scalar on CUDA).
std::vector<uint64_t> typed_seeds() {
    return seeds_from_env("SOLDER_TYPED_SEEDS", {5, 6, 18, 28, 36, 41, 94, 201, 835, 846, 1079, 1629});
}

// Every seed (share -1), or every other from `share` (0 or 1: on OpenCL the set takes PoCL about
// two minutes, in two tests that ctest may run side by side).
void expect_typed_pass(const std::string &target, int share = -1) {
    std::vector<uint64_t> seeds;
    const std::vector<uint64_t> all = typed_seeds();
    for (size_t i = 0; i < all.size(); i++)
        if (share < 0 || int(i % 2) == share) seeds.push_back(all[i]);
    RandomTypedResult r = run_random_typed_pipelines(seeds, target);
    for (auto &m : r.messages) ADD_FAILURE() << m;
    EXPECT_TRUE(r.failed_seeds.empty());
}

}  // namespace

TEST(RandomTypedPipelines, MatchEveryFuncAtRootOnHost) { expect_typed_pass("host"); }

TEST(RandomTypedPipelines, MatchEveryFuncAtRootOnOpenCLFirstHalf) { expect_typed_pass("opencl", 0); }

TEST(RandomTypedPipelines, MatchEveryFuncAtRootOnOpenCLSecondHalf) { expect_typed_pass("opencl", 1); }

// The CI seeds reach every kind of stage and every image type the family has (from their plans).
TEST(RandomTypedPipelines, CiSeedsReachEveryKindAndType) {
    if (std::getenv("SOLDER_TYPED_SEEDS") != nullptr) GTEST_SKIP() << "not the CI seeds";
    RandomTypedResult r = run_random_typed_pipelines(typed_seeds(), "opencl", true);
    for (auto &m : r.messages) ADD_FAILURE() << m;
    const std::set<std::string> kinds(r.kinds.begin(), r.kinds.end()), types(r.types.begin(), r.types.end());
    for (auto k : {"average",
                   "stencil",
                   "lookup_table",
                   "equalization",
                   "row_mean",
                   "scan_x",
                   "scan_y",
                   "absolute_difference",
                   "resample",
                   "row_argmax",
                   "min_max",
                   "wrapping_bits",
                   "bit_masks",
                   "parameter_scale",
                   "preview_u8",
                   "histogram_output",
                   "row_sums",
                   "planar_channels",
                   "interleaved_channels",
                   "luma_input",
                   "specialized"})
        EXPECT_TRUE(kinds.count(k)) << k;
    EXPECT_EQ(types, (std::set<std::string>{"uint8", "uint16", "int16", "float16"}));
}
