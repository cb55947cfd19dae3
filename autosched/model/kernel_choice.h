// What a template offers for one kernel while the search weighs partitions: its kind and block
// shape, the bytes it would read from global memory, its arithmetic, and whether its fused
// reductions fit on chip. Made by the templates' choose step (schedules/<template>/), costed by
// the CostModel (autosched/model/cost_model.h).
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "autosched/model/kernel_params.h"

namespace solder::autosched {

// The search's greedy start stores an inlined member recomputed more than this many times per point
// (four levels of 2-tap stencils): without it, a reduction at the end of a long chain of stencils
// starts as one kernel recomputing the whole chain at every tap of every tap.
constexpr double kGreedyRecompute = 16;

struct KernelChoice {
    TemplateKind kind = TemplateKind::Pointwise;
    int inner_dims = 1;
    int64_t blocks = 1;
    int64_t bytes_read = 0;
    double flops = 0;
    std::vector<int> members;  // non-root nodes computed in this kernel
    bool ok = true;
    int offender = -1;      // reduction that did not fit, if !ok
    int cut_offender = -1;  // where fused Funcs fill the chip, walking out from the root (total_naming_offender)
    int64_t offender_bytes = 0;
    // Why it did not fit (empty: its per-block bytes exceed the device's shared memory).
    std::string offense;
    // Split-K: `split_func`, the kernel's one heavy reduction, is summed in `split_k` slices by
    // launches of `split_blocks` blocks into partials (`split_bytes`: zeroed, written, and read
    // back by the root's blocks, which add them). -1/0: none.
    int split_func = -1;
    int64_t split_k = 0, split_blocks = 0, split_bytes = 0;
    // Where `split_func` is a contraction over its dims `split_contraction_dx` and `_dy` (a Gram
    // matrix's `X(i, s) * X(j, s)` over 0 and 1), its partials are laid out as a contraction's
    // tiles (-1: threads along dim 0, one result each).
    int split_contraction_dx = -1, split_contraction_dy = -1;
    // Where `split_func` has the shape of an interleaved image (FuncNode::interleaved: an RGB
    // image's channels innermost), its partials' threads run along its dims 0 and 1 fused.
    bool split_interleaved = false;
    // Where members are inlined (recomputed wherever read): the member nearest the root that is
    // recomputed more than kGreedyRecompute times per point of its reader's kernel (through a
    // chain of stencils or resamplings), and that factor; -1 where none is.
    int recompute_offender = -1;
    double recompute_factor = 1;
    // Row kernels: the bytes its blocks read again, walking their rows once per level of per-block
    // reductions after the first (a variance reads its mean: two walks before the root's), where
    // the rows the blocks resident on an SM read overflow half its L1. Timed like the first reads:
    // measured on the H100, each further walk of layernorm_bwd's rows (32 KB per block, 8 blocks
    // per SM) cost as much as a kernel of its own reading them (54 us for its 134 MB input);
    // nvfuser_2146's rows (4 KB per block) walked four times took 115 us for 353 MB.
    int64_t rewalk_bytes = 0;
    // The bytes its blocks read, each its own box, of leaves that fit in half of L2 (so counted
    // once in bytes_read) and that a reduction computed whole in every block reads (a total
    // reduction fused into its reader's kernel): L2 serves them, timed at its own rate.
    int64_t l2_bytes = 0;

    // Taken only where cheaper under the cost model than what the templates after it would build
    // (schedules/registry.cpp: choose_kernel): a block reduction computing its producers inline.
    bool compare_later = false;

    // Launches the template makes beyond one per stage of the root (a total reduction's slices:
    // their partials' zeroing and sums), each costed as a launch.
    int extra_launches = 0;

    int launches() const { return (split_func >= 0 ? 3 : 1) + extra_launches; }
};

// The bytes a kernel's on-chip Funcs take (node, bytes per block), totalled. Where the total passes
// `limit`, `kc` names two Funcs the search may store: the largest (`offender`), and the cut
// (`cut_offender`): walking them from the root outwards (consumers before producers: higher node
// numbers first), the first at which the running total passes the limit. Storing the cut keeps
// every Func nearer the root in the kernel, so a long chain is cut where its tiles fill in one step;
// storing the largest (in a chain of stencils, the farthest, with the widest halo) takes one step,
// and leaves one kernel, per Func beyond the limit, but is the better start on small graphs.
inline int64_t total_naming_offender(std::vector<std::pair<int, int64_t>> on_chip, int64_t limit, KernelChoice &kc) {
    std::sort(on_chip.begin(), on_chip.end());
    kc.offender = kc.cut_offender = -1, kc.offender_bytes = 0;
    for (auto &[node, bytes] : on_chip)
        if (bytes > kc.offender_bytes) kc.offender = node, kc.offender_bytes = bytes;  // the first of the largest
    int64_t total = 0;
    for (auto it = on_chip.rbegin(); it != on_chip.rend(); ++it) {
        total += it->second;
        if (total > limit && kc.cut_offender < 0) kc.cut_offender = it->first;
    }
    return total;
}

}  // namespace solder::autosched
