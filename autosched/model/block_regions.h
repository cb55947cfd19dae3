// Regions of a kernel's root that its blocks cover, when a block owns the root's innermost dims.
#pragma once
#include <cstdint>

#include "autosched/model/func_graph.h"

namespace solder::autosched {

// The region of root region `r` one block covers when it owns the `k` innermost dims.
inline Region block_region(const Region &r, int k) {
    Region b = r;
    for (size_t d = size_t(k); d < b.size(); d++) b[d].max = b[d].min;
    return b;
}

// Blocks over the dims from `k` out.
inline int64_t blocks_for(const Region &r, int k) {
    int64_t n = 1;
    for (size_t d = size_t(k); d < r.size(); d++) n *= r[d].extent();
    return n;
}

}  // namespace solder::autosched
