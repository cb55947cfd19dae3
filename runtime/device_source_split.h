// Splits the device source Halide generates for a pipeline (all its kernels in one OpenCL C program
// or one PTX module) into one standalone text per kernel, for the kernels dump. Halide-free.
#pragma once
#include <string>
#include <vector>

namespace solder {

struct KernelSource {
    std::string name;  // the kernel's entry name, as the launch records show it
    std::string text;  // the shared preamble (helpers, pragmas; PTX's .version/.target) + the kernel
};

enum class DeviceLanguage { OpenCL, PTX };

// Kernels start at `__kernel void NAME(` (OpenCL) or `.entry NAME(` (PTX), together with the comment
// lines Halide puts right before them. Halide's placeholder `_at_least_one_kernel` (OpenCL) is left
// out. Returns the kernels in source order.
std::vector<KernelSource> split_device_source(const std::string &source, DeviceLanguage lang);

}  // namespace solder
