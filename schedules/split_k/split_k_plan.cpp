#include "schedules/split_k/split_k_plan.h"

#include <algorithm>

#include "autosched/model/contraction.h"
#include "autosched/model/pipeline_funcs.h"
#include "schedules/row/row_blocks.h"
#include "schedules/writer/reduction_walk.h"

namespace solder::autosched {

namespace {

// Split-K applies to a reduction whose one update is associative, has pure args in order, and no
// predicate (its RVars are fused and cut into slices; extents from inputs or parameters are
// planned at their estimates, and the slices' count follows the run-time extents).
bool splittable_reduction(const FuncNode &R) {
    if (R.updates != 1 || R.dims.empty()) return false;
    const auto &def = R.function.update(0);
    const auto &args = def.args();
    if (args.size() != R.dims.size()) return false;
    for (size_t d = 0; d < args.size(); d++) {
        const auto *v = args[d].as<Halide::Internal::Variable>();
        if (!v || v->name != R.dims[d]) return false;
    }
    if (has_predicate(def)) return false;
    // (Its slices' count, where a scalar parameter gives it, is one the schedule's source names.)
    Halide::Expr steps = 1;
    for (const auto &rv : def.schedule().rvars()) steps = steps * rv.extent;
    if (!slice_count_writable(steps)) return false;
    return Halide::Internal::prove_associativity(R.name, args, def.values()).associative();
}

// Results along the innermost dim the partials' threads need at least.
constexpr int64_t kMinSplitWidth = 16;

}  // namespace

std::pair<int, int> split_contraction_dims(const FuncGraph &g, const PlannerOptions &opt, int func) {
    const FuncNode &n = g.nodes[size_t(func)];
    if (!opt.gpu || !opt.contraction_tiles || !opt.register_tiles || n.reduction_points < kMinContractionSplitSteps ||
        !splittable_reduction(n))
        return {-1, -1};
    const int rank = int(std::min(n.dims.size(), n.region.size()));
    for (int dx = 0; dx < rank; dx++)
        for (int dy = dx + 1; dy < rank; dy++)
            if (n.region[size_t(dx)].extent() >= kContractionSpan &&
                n.region[size_t(dy)].extent() >= kContractionSpan && contraction_over(n, dx, dy))
                return {dx, dy};
    return {-1, -1};
}

// A kernel whose blocks cannot fill the GPU while one reduction in it sums many rows per result
// (nvfuser's column sums: 1024 results of 57344 rows each, one block) takes split-K: the rows are
// cut into slices, each summed by its own blocks into a partial written to global memory, and the
// kernel's blocks add the partials. The reduction is the root of a kernel of its own, or the one
// heavy reduction a row kernel computes per block, unless it has few results per block (the row
// template already splits those across the block's threads) or few rows.
void consider_split_k(const FuncGraph &g, const PlannerOptions &opt, int root, KernelChoice &kc) {
    const int64_t full = int64_t(opt.device.sms) * opt.device.blocks_per_sm_to_fill;
    // (A contraction root's blocks are its tiles: a weight gradient's 3 x 3 taps of 64 x 64
    // channels fill 9 blocks of tiles, though 36864 results fill 144 blocks of a thread each.)
    const auto [cx, cy] = opt.gpu && kc.kind == TemplateKind::Pointwise && kc.ok ? split_contraction_dims(g, opt, root)
                                                                                 : std::pair<int, int>{-1, -1};
    if (!opt.gpu || !kc.ok || (kc.blocks >= full && cy < 0)) return;
    int R = -1;
    if (kc.kind == TemplateKind::Pointwise && g.nodes[root].is_reduction()) {
        for (int m : kc.members)
            if (g.nodes[m].is_reduction()) return;
        R = root;
    } else if (kc.kind == TemplateKind::Row) {
        // Any other reduction must be light (nvfuser sums over a unit dim): it still runs unsplit.
        for (int m : kc.members) {
            if (!g.nodes[m].is_reduction() || g.nodes[m].reduction_points <= kMinSliceRows) continue;
            if (R >= 0) return;
            R = m;
        }
    }
    // Threads go across the results' innermost dim: too few there (a row reduction's results
    // are one per row) and the slices would read with one thread per block, strided. (Not so for a
    // contraction's tiles, which lie over two dims of enough results.)
    if (R < 0 || !splittable_reduction(g.nodes[R])) return;
    // (An interleaved image's few channels innermost, a kernel's root: the partials' threads run
    // along the channels and the pixels together, contiguous in memory. Measured on the H100, a
    // user's mean of each channel down each column of an interleaved 8-bit RGB 4K image took 287.5
    // us with a thread per column walking its 2160 rows, 28.2 us so; Anderson2021 105.7.)
    const bool interleaved = R == root && g.nodes[R].interleaved(kMinSplitWidth);
    if (g.nodes[R].region[0].extent() < kMinSplitWidth && (R != root || cy < 0) && !interleaved) return;
    if (R != root) {
        const auto per_block = row_block_regions(g, root, kc);
        if (per_block[R].empty() || region_points(per_block[R]) <= 8) return;
    }
    const FuncNode &n = g.nodes[R];
    const int64_t rows = n.reduction_points;
    const int64_t width = interleaved ? n.region[0].extent() * n.region[1].extent() : n.region[0].extent();
    int64_t base = ((width + kSplitThreads - 1) / kSplitThreads) * (n.points() / std::max<int64_t>(1, width));
    // A contraction that is its kernel's root (a Gram matrix: 256 x 256 results of 16384 products
    // each) sums its slices in the contraction's tiles, each thread kContractionTile x
    // kContractionTile results whose operands' loads it shares: one result per thread, every step
    // loads two values for one product.
    // (Its other dims, a weight gradient's taps, loop in each block: schedule_split_k_partials.)
    if (cy > 0) {
        base = contraction_tiles(n, cx, cy);
        // Only where the tiles leave SMs idle, its other dims (a batch) counted: a 1024^2 product's
        // 256 tiles, unsplit, took 165 us on the H200; partials would add their bytes to that.
        if (base * points_beside(n, cx, cy) >= opt.device.sms) return;
    }
    int64_t k = std::min((full + base - 1) / base, rows / kMinSliceRows);
    if (k < 2) return;
    kc.split_func = R;
    kc.split_contraction_dx = cx, kc.split_contraction_dy = cy;
    kc.split_interleaved = interleaved;
    kc.split_k = k;
    kc.split_blocks = base * k;
    kc.split_bytes = k * n.points() * n.elem_bytes;
}

}  // namespace solder::autosched
