// The device time of each kernel launch in one pipeline call, for the bandwidth dump. Halide-free.
#pragma once
#include <functional>
#include <vector>

#include "runtime/pipeline_library.h"

namespace solder {

// Calls the pipeline `runs` times with the hooks' per-launch timing on (CUDA events, OpenCL
// profiling events) and returns, for each launch of one call, the median over the runs (-1 where
// the device gave no time). `call` runs the pipeline once and waits for it; false stops early.
// Empty when the library cannot time launches or no run succeeded.
std::vector<double> median_launch_times(PipelineLibrary &lib, int runs, const std::function<bool()> &call);

}  // namespace solder
