// Solder's target names (host, opencl, cuda) and the Halide Targets they mean.
#pragma once
#include <string>

#include "Halide.h"

namespace solder {

// host: this CPU. opencl: this CPU's host code plus OpenCL kernels (PoCL here).
// cuda: CUDA kernels as PTX for compute capability 8.6 (Halide 21 has no 9.0; the driver JIT-compiles
// it for the H100), with host code for any x86-64 CPU that has AVX2, so libraries built here run
// on the GPU machine.
Halide::Target make_target(const std::string &name);
bool is_target_name(const std::string &name);

}  // namespace solder
