// Random fixed-point pipelines, as camera and mobile image code is written with Halide's integer
// intrinsics: an 8- or 16-bit image through three to six stages, each a 3-tap stencil summed by
// widening_add and widening_mul and rounded back by rounding_shift_right and saturating_cast, a
// halving_add or rounding_halving_add of two earlier stages, a saturating_add or saturating_sub, a
// gain in Q4 from a scalar parameter (widening_mul, rounding_shift_right), an absd, a
// mul_shift_right, a 2 x 2 downsample averaged by halving adds and read back at half resolution,
// or a count_leading_zeros; edges repeated. The last stage is the output; half the seeds add each
// row's widening sum in 32 bits as a second output. Planned at 1024 x 512, run at the random
// families' sizes with the gain drawn per size, and compared exactly with the same pipeline built
// again with every Func at root on the host.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace solder::testing {

struct RandomFixedPointResult {
    std::vector<uint64_t> failed_seeds;
    std::vector<std::string> messages;  // one per failure: the seed, what failed, the plan
};

// Plans each seed's pipeline with Solder for `target` ("host", "opencl"), runs it and compares. On
// OpenCL each pipeline is also planned for CUDA and lowered.
RandomFixedPointResult run_random_fixed_point(const std::vector<uint64_t> &seeds, const std::string &target);

}  // namespace solder::testing
