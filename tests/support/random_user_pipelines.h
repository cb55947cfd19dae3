// Random pipelines written the way Halide users write them: a 2-D float image whose extents come
// from the input, stages drawn from pointwise mixes, stencils over boundary conditions, row
// reductions over the input's extent, scans (along a dim, and at each point over a parameter's
// steps), histograms read back at data-dependent points,
// Tuples, several updates, resamplings (a pyramid level down and back up), reductions over a
// scalar parameter, and minima over a parameter's number of shifts of a window of differences (a
// reduction over stencils along its RVar), row means as an output of their own beside the stage
// that reads them, column sums of the deviations from such means, and more drawn last (among
// them an interleaved stage's channel means, per-cell histograms and max-unpooling's stores). Each pipeline is built
// twice from its seed: once scheduled by Solder, once with every Func at root and nothing else
// (the reference, on the host), and the two are compared at the estimated size and at others.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace solder::testing {

struct RandomUserResult {
    std::vector<uint64_t> failed_seeds;
    std::vector<std::string> messages;  // one per failure: the seed, what failed, the plan
    std::vector<std::string> kinds;     // the stage kinds the pipelines used, one entry each
    int side_output_plans = 0;          // plans with a kernel that writes a side output
    int transposed_plans = 0;           // plans with a kernel that reads a producer transposed in tiles
    int register_tile_plans = 0;        // plans with a kernel that reduces its rows' windows in registers
    int lane_result_plans = 0;          // plans with a total reduction whose threads lie along its results
    int cell_scatter_plans = 0;         // CUDA plans (OpenCL runs) with a scatter taken a block per cell
    int bins_branch_plans = 0;          // CUDA plans (OpenCL runs) whose chunks' bins fit only in a branch
    int row_scatter_plans = 0;          // plans with a scatter taken a block per RDom point, rows over threads
    int distinct_store_plans = 0;       // plans with stores whose RDom's points all run at once, no atomics
    int step_block_plans = 0;           // plans with a recurrence's rows in one block, a barrier between
    int rdom_walk_plans = 0;            // plans with a recurrence walked per point of its innermost RVar
    int scatter_fold_plans = 0;         // plans with a keep-the-better scatter run as two atomic passes
    int cloned_reduction_plans = 0;     // plans whose outputs read copies of a small reduction of their own
    int step_reruns = 0;  // sizes run again with another input: a value of the first fell within ulps of a bin's edge
};

// Seed `seed`'s pipeline planned with Solder for `target` ("host", "opencl", "cuda"), without
// running it: the plan's text, and the kinds of its stages in `kinds`.
std::string plan_random_user_pipeline(uint64_t seed, const std::string &target, std::vector<std::string> *kinds);

// Seed `seed`'s pipeline planned with Solder for CUDA and lowered (no GPU needed): what failed, or "".
std::string lower_random_user_pipeline_for_cuda(uint64_t seed);

// Plans each seed's pipeline with Solder for `target` ("host", "opencl"), runs it at its estimate
// and at smaller, odd and one-point sizes, and compares with the reference. With `plan_only`, the
// plans alone (and, for OpenCL, the CUDA plan): the result's kinds and plan counts, no runs.
RandomUserResult run_random_user_pipelines(const std::vector<uint64_t> &seeds, const std::string &target,
                                           bool plan_only = false);

}  // namespace solder::testing
