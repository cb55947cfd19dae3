// The bytes each of Solder's planned kernels moves, carried in a library's info record (key
// "plan_kernels") so that the bandwidth dump works where the plan is gone: in solder-exec on the
// GPU machine, which has no libHalide. Also matches a launched Halide kernel to its planned kernel.
// Halide-free.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "autosched/model/plan.h"  // data only: no Halide

namespace solder {

struct PlannedKernel {
    std::string name;                // k0_mean_3
    std::vector<std::string> roots;  // the Funcs it writes (several with horizontal fusion)
    int64_t bytes_read = 0, bytes_written = 0;
};

std::vector<PlannedKernel> planned_kernels_of(const autosched::Plan &plan);

// "name root,root read written;name ..." (Func names hold no spaces, commas or semicolons).
std::string encode_planned_kernels(const std::vector<PlannedKernel> &ks);
// Throws std::invalid_argument naming the entry that is malformed.
std::vector<PlannedKernel> decode_planned_kernels(const std::string &text);

// Halide names a kernel after the loop it comes from: "_kernel_" + the Func (non-alphanumerics as
// '_') + "_s<stage>_...". Returns the planned kernel writing that Func, or null. The longest root
// that fits wins: "_kernel_a_s2_s0_x" is Func a_s2's kernel, not stage 2 of Func a.
const PlannedKernel *planned_kernel_of_launch(const std::vector<PlannedKernel> &ks, const std::string &kernel_name);

}  // namespace solder
