// What a template offers for one kernel while the search weighs partitions: its kind and block
// shape, the bytes it would read from global memory, its arithmetic, and whether its fused
// reductions fit on chip. Made by the templates' choose step (schedules/<template>/), costed by
// the CostModel (autosched/model/cost_model.h).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "autosched/model/kernel_params.h"

namespace solder::autosched {

struct KernelChoice {
    TemplateKind kind = TemplateKind::Pointwise;
    int inner_dims = 1;
    int64_t blocks = 1;
    int64_t bytes_read = 0;
    double flops = 0;
    std::vector<int> members;  // non-root nodes computed in this kernel
    bool ok = true;
    int offender = -1;  // reduction that did not fit, if !ok
    int64_t offender_bytes = 0;
    // Why it did not fit (empty: its per-block bytes exceed the device's shared memory).
    std::string offense;
    // Split-K: `split_func`, the kernel's one heavy reduction, is summed in `split_k` slices by
    // launches of `split_blocks` blocks into partials (`split_bytes`: zeroed, written, and read
    // back by the root's blocks, which add them). -1/0: none.
    int split_func = -1;
    int64_t split_k = 0, split_blocks = 0, split_bytes = 0;

    int launches() const { return split_func >= 0 ? 3 : 1; }
};

}  // namespace solder::autosched
