#include "schedules/row/warp_rows.h"

#include <algorithm>
#include <vector>

namespace solder::autosched {

namespace {

// A Func computed per block that a warp-reduced row kernel can hold: one value per block, and if
// it reduces, over one RVar whose constant extent `lanes_step` (32 x warps x vector) divides, into
// one scalar of at most 32 bits. Empty when it can; else why not.
std::string why_not_warp_member(const FuncNode &n, const FuncPlan &p, int64_t lanes_step) {
    if (p.block_points != 1) return n.name + " has " + std::to_string(p.block_points) + " values per block, not one";
    if (n.updates == 0) return "";
    const auto &fn = n.function;
    if (n.updates != 1 || fn.update(0).schedule().rvars().size() != 1)
        return n.name + " reduces in more than one update or over more than one RVar";
    if (fn.output_types().size() != 1 || fn.output_types()[0].bits() > 32)
        return n.name + " reduces into " + n.type + " (a warp shuffle moves 32 bits)";
    auto extent = Halide::Internal::as_const_int(fn.update(0).schedule().rvars()[0].extent);
    if (extent && *extent == 1) return "";  // a sum over a dim of one: nothing to split
    if (!extent || *extent % lanes_step != 0)
        return n.name + "'s reduction extent is not a multiple of " + std::to_string(lanes_step);
    return "";
}

}  // namespace

WarpRowShape warp_row_shape(const FuncGraph &g, const Plan &plan, const RowParams &k, int root) {
    WarpRowShape s;
    const FuncNode &O = g.nodes[size_t(root)];
    if (O.updates != 0 || O.dims.empty()) return s;
    // Short rows keep the tree by design: no note (the plan would list one for every small row).
    // Nor for a kernel that computes no reduction per block: nothing to reduce, the plain layout.
    // The block's elements: the row (dim 0) times the inner dims unrolled in each thread (puzzler's
    // 16 slices of 64: each reduction is over one slice's row, all 16 in one block).
    const int64_t extent = O.region[0].extent();
    int64_t block_elements = extent;
    for (auto &[d, e] : k.unrolled_dims) block_elements *= e;
    std::vector<const FuncPlan *> at_block;
    bool any_reduction = false;
    for (auto &p : plan.funcs)
        if (p.anchor == O.name && p.placement == Placement::ComputeAtBlock) {
            at_block.push_back(&p);
            any_reduction |= g.nodes[size_t(g.find(p.func))].updates > 0;
        }
    if (block_elements < kMinWarpRow || !any_reduction) return s;
    const bool middle_unrolled = int(k.unrolled_dims.size()) == k.inner_dims - 1;
    if (!middle_unrolled || k.rows_per_block != 1 || !k.staged.empty()) {
        s.why_not = "no warp-shuffle reductions: they need one block per row, without split-K partials to add "
                    "or staged inputs";
        return s;
    }
    // One long row: 2 to 8 warps. Short rows with unrolled inner dims: as many warps as give each
    // lane kWarpRowElementsPerLane elements of the block, from one.
    int warps = k.inner_dims == 1 ? 2 : 1;
    while (warps < 8 && int64_t(warps) * 2 * 32 * kWarpRowElementsPerLane <= block_elements) warps *= 2;
    for (int v = std::max(1, kWarpRowAccessBytes / std::max(1, O.elem_bytes)); v >= 1; v /= 2) {
        const int64_t step = int64_t(32) * warps * v;
        if (extent % step != 0) continue;
        std::string why;
        for (const FuncPlan *p : at_block) {
            why = why_not_warp_member(g.nodes[size_t(g.find(p->func))], *p, step);
            if (!why.empty()) break;
        }
        if (why.empty()) {
            s.warps = warps;
            s.vector_width = v;
            return s;
        }
        s.why_not = "no warp-shuffle reductions: " + why;
    }
    if (s.why_not.empty())
        s.why_not = "the row's " + std::to_string(extent) + " elements do not split evenly over warps";
    return s;
}

}  // namespace solder::autosched
