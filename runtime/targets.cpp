#include "runtime/targets.h"

#include "runtime/unknown_name_error.h"

namespace solder {
using namespace Halide;

bool is_target_name(const std::string &n) { return n == "host" || n == "opencl" || n == "cuda"; }

Target make_target(const std::string &name) {
    if (name == "host") return get_host_target();
    if (name == "opencl") return get_host_target().with_feature(Target::OpenCL);
    if (name == "cuda") return Target("x86-64-linux-sse41-avx-avx2-fma-f16c-cuda-cuda_capability_86");
    throw UnknownNameError("unknown target '" + name + "' (expected host, opencl or cuda)");
}

}  // namespace solder
