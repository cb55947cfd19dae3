// Random 4-D tensor pipelines written the way Halide users write network layers: a batch of
// feature maps stored channels-first (w, h, c, n) or channels-last (c, w, h, n), in float32,
// float64 or bfloat16 (computed in float32; float64 in float64), whose extents all come from the
// input. Stages: activations with a parameter, per-channel affine maps read from 1-D inputs,
// channel mixing (a 1x1 convolution reduced over the input's channels), depthwise 3x3
// convolutions over a zero border, softmax and RMS normalization across channels, instance
// normalization over each map, max-pooling and nearest upsampling, squeeze-and-excite gates,
// channel rolls and flips, cumulative sums down the rows, channel concatenation by halves, a batch
// gathered at data-dependent indices, argmax masks, moving averages over a parameter's number of
// taps, sums accumulated in float64, and an extern stage (define_extern) in the middle. Outputs:
// the last stage in the storage type, per-channel statistics (c, n), a scalar (0-d) total, an
// argmax index map (w, h, n) and a middle stage. Each pipeline is compared with every Func at
// root on the host, at its estimate and at other sizes (extent 1 in every dim among them); every
// fifth seed is planned at a network's size (256 x 256 x 64 x 8) and run at the smaller ones.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "Halide.h"

namespace solder::testing {

struct RandomTensorResult {
    std::vector<uint64_t> failed_seeds;
    std::vector<std::string> messages;  // one per failure: the seed, what failed, the plan
    std::vector<std::string> kinds;     // the stage kinds the pipelines used, one entry each
    std::vector<std::string> types;     // each pipeline's storage type and layout ("float32 nchw", ...)
};

// Seed `seed`'s pipeline, for building ahead of time (bench/random_on_gpu/): its outputs, scheduled
// by Solder for `target` ("cuda", "opencl", "host"), or, with `target` empty, every Func at root
// (the reference); its arguments in a fixed order whatever it reads: the tensor "x", the inputs
// "mix" (c, c), "dw" (3, 3, c), "affine" (c, 2) and "idx" (n), the parameters "gain" (float32) and
// "taps" (int32); and whether the tensor is stored channels-last. Outputs are named by their shape:
// "stats" (c, n), "total" (a scalar), "best" (a Tuple over w, h, n); any other is the tensor's.
struct TensorPipelineFuncs {
    std::vector<Halide::Func> outputs;
    std::vector<Halide::Argument> args;
    bool nhwc = false;
    // What the family allows each output buffer (a Tuple's each) to differ from the reference,
    // relative: its compute type's (a float64 total of a float32 tensor: float32's), not its own.
    std::vector<double> tolerances;
};
TensorPipelineFuncs random_tensor_pipeline(uint64_t seed, const std::string &target);

// Plans each seed's pipeline with Solder for `target` ("host", "opencl"), runs it at its estimate
// and at smaller, odd and one-point sizes and at a spatial window away from the origin, and
// compares with the reference. On OpenCL each pipeline is also planned for CUDA and lowered. With
// `plan_only`, the plans alone (for the kinds and types), no runs.
RandomTensorResult run_random_tensor_pipelines(const std::vector<uint64_t> &seeds, const std::string &target,
                                               bool plan_only = false);

}  // namespace solder::testing
