// Random lang/ graphs for differential testing of the planner. Each graph is built twice at once:
// as Halide Funcs (through lang/) and as values computed eagerly in double precision on the host,
// an independent reference that shares no code with Halide.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "lang/lang.h"

namespace solder::testing {

struct NdArray {
    Shape shape;
    std::vector<double> v;  // row-major
};

struct RandomGraph {
    uint64_t seed = 0;
    std::vector<lang::Tensor> inputs, outputs;
    std::vector<NdArray> input_values, expected;
    std::string ops;  // what was built, for failure messages
    // The largest magnitude of any value the graph computes: f32 rounding of an intermediate this
    // large shows in an output that cancels it (x - max(x) is 0 in double, -2e-6 in f32 for
    // seed 40343), so the comparison allows a little of it.
    double scale = 0;
};

// Mixes pointwise, broadcast, reduction (sum/max/mean, keepdim or not), stencil (shifted slices)
// and casts, with 1 to 3 outputs. Names are prefixed with "g<seed>_" so graphs can share a pipeline.
RandomGraph make_random_graph(lang::Graph &g, uint64_t seed);

struct BatchResult {
    std::vector<uint64_t> failed_seeds;
    std::vector<std::string> messages;
    double max_plan_ms = 0;
};

// Plans each graph alone (checking the planner never throws), then plans, applies, compiles and
// runs all of them as one pipeline on `target` (host or opencl), comparing every output with the
// eager reference. With `against_unfused`, the batch is also compiled with the unfused schedule
// and every planned output must match it too (keep such batches small: Halide's compile time
// grows faster than linearly with the number of Funcs at root).
BatchResult run_random_batch(const std::vector<uint64_t> &seeds, const std::string &target, const std::string &out_dir,
                             bool against_unfused = false);

}  // namespace solder::testing
