#include "schedules/split_k/split_k_plan.h"

#include <algorithm>

#include "schedules/row/row_blocks.h"
#include "autosched/model/pipeline_funcs.h"

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
    return Halide::Internal::prove_associativity(R.name, args, def.values()).associative();
}

// Results along the innermost dim the partials' threads need at least.
constexpr int64_t kMinSplitWidth = 16;

}  // namespace

// A kernel whose blocks cannot fill the GPU while one reduction in it sums many rows per result
// (nvfuser's column sums: 1024 results of 57344 rows each, one block) takes split-K: the rows are
// cut into slices, each summed by its own blocks into a partial written to global memory, and the
// kernel's blocks add the partials. The reduction is the root of a kernel of its own, or the one
// heavy reduction a row kernel computes per block, unless it has few results per block (the row
// template already splits those across the block's threads) or few rows.
void consider_split_k(const FuncGraph &g, const PlannerOptions &opt, int root, KernelChoice &kc) {
    const int64_t full = int64_t(opt.device.sms) * opt.device.blocks_per_sm_to_fill;
    if (!opt.gpu || !kc.ok || kc.blocks >= full) return;
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
    // are one per row) and the slices would read with one thread per block, strided.
    if (R < 0 || g.nodes[R].region[0].extent() < kMinSplitWidth || !splittable_reduction(g.nodes[R])) return;
    if (R != root) {
        const auto per_block = row_block_regions(g, root, kc);
        if (per_block[R].empty() || region_points(per_block[R]) <= 8) return;
    }
    const FuncNode &n = g.nodes[R];
    const int64_t rows = n.reduction_points;
    const int64_t base =
        ((n.region[0].extent() + kSplitThreads - 1) / kSplitThreads) * (n.points() / n.region[0].extent());
    int64_t k = std::min((full + base - 1) / base, rows / kMinSliceRows);
    if (k < 2) return;
    kc.split_func = R;
    kc.split_k = k;
    kc.split_blocks = base * k;
    kc.split_bytes = k * n.points() * n.elem_bytes;
}

}  // namespace solder::autosched
