// Random 4-D tensor pipelines (tests/support/random_tensor_pipelines.h), scheduled by Solder and
// compared with every Func at root, on the host and on OpenCL (where each is also planned for CUDA
// and lowered), at the estimated size and at others. SOLDER_TENSOR_SEEDS=N runs seeds 1 to N
// instead of the CI set; the soak command runs more (solder-soak N --family tensor).
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <vector>

#include "tests/support/random_tensor_pipelines.h"
#include "tests/support/seeds.h"

using namespace solder::testing;

namespace {

// CI's seeds: 2, 3, 5 and 255 reach, with the five below, every kind of stage, storage type and
// layout (CiSeedsReachEveryKindAndType checks it), and 39 is planned at a network's size; and five
// that each found a fault:
// - 18: float64 means read densely by a float32 stage's vectors, guarded at run-time sizes; Halide's
//   CUDA backend failed an LLVM assertion on the predicated load (autosched/apply_plan.h:
//   funcs_without_vectors);
// - 102: 4 rows per block of a row kernel whose rows were read through repeat_edge; Halide bounded the
//   threads of the block's channel sums over every block, W x W of them, and OpenCL refused the launch
//   at W = 67 (schedules/row/row.cpp: rows_per_block_for; on CUDA it was 2304 threads already at the
//   estimate);
// - 198: a cumulative sum's kernel that had to run on the host (float64 on OpenCL without
//   cl_doubles) kept its GPU scan-in-tiles schedule (schedules/generic/generic.cpp);
// - 273: an extern stage taken for a caller of the Funcs its argument reads (Halide's
//   find_direct_calls looks through the extern's proxy definition), and Halide refused the copy made
//   for it (autosched/model/pipeline_funcs.h: direct_callees);
// - 109 (planned at a network's size): a pointwise kernel of four block dims fused its row tiles'
//   count inside the batch dim; Halide bounded the batch index, rebuilt by dividing by that count,
//   loosely, and the input was read at batch -4 on OpenCL (schedules/writer/schedule_writer.cpp:
//   tile counts outermost in a fuse).
std::vector<uint64_t> tensor_seeds() {
    return seeds_from_env("SOLDER_TENSOR_SEEDS", {2, 3, 5, 18, 39, 102, 109, 198, 255, 273});
}

// Every seed (share -1), or every other from `share` (0 or 1: two tests ctest may run side by side).
void expect_tensor_pass(const std::string &target, int share = -1) {
    std::vector<uint64_t> seeds;
    const std::vector<uint64_t> all = tensor_seeds();
    for (size_t i = 0; i < all.size(); i++)
        if (share < 0 || int(i % 2) == share) seeds.push_back(all[i]);
    RandomTensorResult r = run_random_tensor_pipelines(seeds, target);
    for (auto &m : r.messages) ADD_FAILURE() << m;
    EXPECT_TRUE(r.failed_seeds.empty());
}

}  // namespace

TEST(RandomTensorPipelines, MatchEveryFuncAtRootOnHost) { expect_tensor_pass("host"); }

TEST(RandomTensorPipelines, MatchEveryFuncAtRootOnOpenCLFirstHalf) { expect_tensor_pass("opencl", 0); }

TEST(RandomTensorPipelines, MatchEveryFuncAtRootOnOpenCLSecondHalf) { expect_tensor_pass("opencl", 1); }

// The CI seeds reach every kind of stage, storage type and layout the family has (from their plans).
TEST(RandomTensorPipelines, CiSeedsReachEveryKindAndType) {
    if (std::getenv("SOLDER_TENSOR_SEEDS") != nullptr) GTEST_SKIP() << "not the CI seeds";
    RandomTensorResult r = run_random_tensor_pipelines(tensor_seeds(), "opencl", true);
    for (auto &m : r.messages) ADD_FAILURE() << m;
    const std::set<std::string> kinds(r.kinds.begin(), r.kinds.end()), types(r.types.begin(), r.types.end());
    for (auto k :
         {"silu",          "gelu",          "channel_affine", "channel_mix",      "depthwise_3x3", "channel_softmax",
          "instance_norm", "max_pool_up",   "squeeze_excite", "roll_flip",        "cumsum_h",      "channel_halves",
          "batch_gather",  "argmax_mask",   "moving_taps",    "rms_channels_f64", "extern_stage",  "channel_stats",
          "scalar_total",  "argmax_output", "middle_output",  "specialized"})
        EXPECT_TRUE(kinds.count(k)) << k;
    for (auto t : {"float32 nchw", "float32 nhwc", "float64 nchw", "float64 nhwc", "bfloat16 nchw", "bfloat16 nhwc"})
        EXPECT_TRUE(types.count(t)) << t;
}
