#include "runtime/targets.h"

#include <cstdlib>

#include "core/unknown_name_error.h"

namespace solder {
using namespace Halide;

bool is_target_name(const std::string &n) { return n == "host" || n == "opencl" || n == "cuda"; }

namespace {

Target base_target(const std::string &name) {
    if (name == "host") return get_host_target();
    if (name == "opencl") return get_host_target().with_feature(Target::OpenCL);
    if (name == "cuda") return Target("x86-64-linux-sse41-avx-avx2-fma-f16c-cuda-cuda_capability_86");
    throw UnknownNameError("unknown target '" + name + "' (expected host, opencl or cuda)");
}

}  // namespace

Target make_target(const std::string &name) {
    Target t = base_target(name);
    // SOLDER_HALIDE_FEATURES=debug,profile adds Halide target features, for looking into a library
    // (debug: the runtime logs every call with its time, e.g. where a many-buffer wrapper spends
    // its host time). Part of the target string, so the compile cache keys on it.
    const char *env = std::getenv("SOLDER_HALIDE_FEATURES");
    if (!env || !*env) return t;
    std::string words = env;
    size_t start = 0;
    while (start <= words.size()) {
        size_t end = words.find_first_of(",-", start);
        if (end == std::string::npos) end = words.size();
        std::string w = words.substr(start, end - start);
        if (!w.empty()) {
            Target::Feature f = Target::feature_from_name(w);
            if (f == Target::FeatureEnd)
                throw UnknownNameError("SOLDER_HALIDE_FEATURES: '" + w + "' is not a Halide target feature");
            t = t.with_feature(f);
        }
        start = end + 1;
    }
    return t;
}

}  // namespace solder
