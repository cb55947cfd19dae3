// Tests read a kernel's template parameters through these: each throws (failing the test with a
// message) where the kernel is not of the template the test expects.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "autosched/model/plan.h"

namespace solder::testing {

template<typename P> const P &params_of(const autosched::KernelPlan &k, const char *what) {
    if (const P *p = k.get<P>()) return *p;
    throw std::logic_error("kernel " + k.name + " is " + k.template_name() + ", not " + what);
}
inline const autosched::RowParams &row_of(const autosched::KernelPlan &k) {
    return params_of<autosched::RowParams>(k, "row");
}
inline const autosched::StencilTileParams &tile_of(const autosched::KernelPlan &k) {
    return params_of<autosched::StencilTileParams>(k, "stencil_tile");
}
inline const autosched::InnerOuterParams &inner_outer_of(const autosched::KernelPlan &k) {
    return params_of<autosched::InnerOuterParams>(k, "inner_outer");
}
// The kernel of `plan` whose root is `root` as written (a second Func named "out" is "out$1" in
// the plan), or null.
inline const autosched::KernelPlan *kernel_rooted_at(const autosched::Plan &plan, const std::string &root) {
    for (auto &k : plan.kernels)
        if (k.root.substr(0, k.root.find('$')) == root) return &k;
    return nullptr;
}
// Warps per row of a row kernel (0 for any other template).
inline int row_warps(const autosched::KernelPlan &k) { return k.get<autosched::RowParams>() ? row_of(k).warps : 0; }

// Split-K's fields (empty / 0 without split-K). The group of an inner-outer kernel: its column sums.
inline std::vector<std::string> split_group(const autosched::KernelPlan &k) {
    if (const auto *io = k.get<autosched::InnerOuterParams>()) return io->column_sums;
    return k.split ? k.split->group : std::vector<std::string>{};
}
inline std::string split_launched_with(const autosched::KernelPlan &k) {
    return k.split ? k.split->launched_with : std::string();
}
inline int64_t split_slices(const autosched::KernelPlan &k) { return k.split ? k.split->slices : 0; }
inline int64_t split_rows(const autosched::KernelPlan &k) { return k.split ? k.split->rows : 0; }
inline int64_t split_blocks(const autosched::KernelPlan &k) { return k.split ? k.split->blocks : 0; }
inline std::string partials(const autosched::KernelPlan &k) { return k.split ? k.split->partials : std::string(); }

}  // namespace solder::testing
