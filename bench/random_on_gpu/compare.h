// What the GPU check's runners share: calling a library, and its outputs against its reference's.
#pragma once
#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "HalideBuffer.h"

namespace random_on_gpu {

using Buffer = Halide::Runtime::Buffer<void>;

// Calls `fn` with the arguments its metadata lists: each output a buffer of `shape(its name)`, each
// input the pointer `named` holds for its name (a buffer's halide_buffer_t, a scalar's address;
// null for any other, such as the user context). Returns the outputs copied to the host, or none
// where it failed (its error in `*err`).
inline std::vector<Buffer> call_library(int (*fn)(void **), const halide_filter_metadata_t *md,
                                        const std::map<std::string, void *> &named,
                                        const std::function<std::vector<int>(const std::string &)> &shape, int *err) {
    std::vector<void *> args;
    std::vector<Buffer> outs;
    outs.reserve(size_t(md->num_arguments));
    for (int i = 0; i < md->num_arguments; i++) {
        const halide_filter_argument_t &a = md->arguments[i];
        if (a.kind == halide_argument_kind_output_buffer) {
            outs.emplace_back(a.type, shape(a.name));
            args.push_back(outs.back().raw_buffer());
        } else {
            auto it = named.find(a.name);
            args.push_back(it == named.end() ? nullptr : it->second);
        }
    }
    *err = fn(args.data());
    if (*err != 0) return {};
    for (auto &o : outs) o.copy_to_host();
    return outs;
}

// "ok", or what failed: either library's error code, or the first output with values further from
// the reference's than `tol(output, want)` allows (how many, and the largest difference).
inline std::string verdict(int ours_error, int ref_error, const std::vector<Buffer> &got,
                           const std::vector<Buffer> &want,
                           const std::function<double(const Buffer &, const int *)> &value_at,
                           const std::function<double(size_t, double)> &tol) {
    if (ours_error != 0 || ref_error != 0)
        return "FAILED: error " + std::to_string(ours_error) + " (ours), " + std::to_string(ref_error) + " (reference)";
    for (size_t o = 0; o < got.size(); o++) {
        long differ = 0;
        double worst = 0;
        got[o].for_each_element([&](const int *pos) {
            const double g = value_at(got[o], pos), v = value_at(want[o], pos);
            if (!(std::abs(g - v) <= tol(o, v))) differ++, worst = std::max(worst, std::abs(g - v));
        });
        if (differ)
            return "MISMATCH: output " + std::to_string(o) + ", " + std::to_string(differ) +
                   " values, largest difference " + std::to_string(worst);
    }
    return "ok";
}

}  // namespace random_on_gpu
