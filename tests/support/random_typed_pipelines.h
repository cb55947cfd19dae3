// Random pipelines over narrow types, written the way imaging code is: an 8-bit, 12-bit (in 16),
// signed 16-bit or half-float image whose stages widen, compute and narrow again (rounded
// averages and stencils over boundary conditions, a lookup table read at each pixel's value, a
// histogram equalization, row means, in-place IIR scans stored in the narrow type, absolute
// differences, a pyramid level down and back up, row argmaxes as Tuples, wrapping arithmetic and
// bit operations, shifts by a parameter), with outputs of several types and shapes (the image's, an
// 8-bit preview, the histogram's counts, per-row sums, 3 channels planar or interleaved, a luma
// from a second, 3-channel input). Integer pipelines do integer arithmetic only,
// so Solder's schedule must match the reference (every Func at root, on the host) exactly; the
// half-float ones to a few of their ulps (their data-dependent indices read the input only, so a
// rounding cannot move a value to another bin).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "Halide.h"

namespace solder::testing {

struct RandomTypedResult {
    std::vector<uint64_t> failed_seeds;
    std::vector<std::string> messages;  // one per failure: the seed, what failed, the plan
    std::vector<std::string> kinds;     // the stage kinds the pipelines used, one entry each
    std::vector<std::string> types;     // each pipeline's image type ("uint8", "uint16", "int16", "float16")
};

// Seed `seed`'s pipeline, for building ahead of time (bench/random_on_gpu/): its outputs, scheduled
// by Solder for `target` ("cuda", "opencl", "host"), or, with `target` empty, every Func at root
// (the reference); and its arguments in a fixed order whatever it reads: the image "in", the
// 3-channel planar image "rgb", and the parameters "knee", "shift" (int32) and "gain" (float32).
// Outputs are named by their shape: "counts" (32 bins), "row_sums" (the rows), "planar" (x, y, 3),
// "interleaved" (3, x, y); any other is over the image's points.
struct TypedPipelineFuncs {
    std::vector<Halide::Func> outputs;
    std::vector<Halide::Argument> args;
};
TypedPipelineFuncs random_typed_pipeline(uint64_t seed, const std::string &target);

// Plans each seed's pipeline with Solder for `target` ("host", "opencl"), runs it at its estimate
// and at smaller, odd, one-point sizes and at a window away from the origin, and compares with the
// reference. On OpenCL, each pipeline is also planned for CUDA and lowered. With `plan_only`, the
// plans alone (for the kinds and types), no runs.
RandomTypedResult run_random_typed_pipelines(const std::vector<uint64_t> &seeds, const std::string &target,
                                             bool plan_only = false);

}  // namespace solder::testing
