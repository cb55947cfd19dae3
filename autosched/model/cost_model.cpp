#include "autosched/model/cost_model.h"

#include <algorithm>

namespace solder::autosched {

double CostModel::kernel_us(int64_t bytes, double flops, int64_t blocks) const {
    const int64_t full = int64_t(d_.sms) * d_.blocks_per_sm_to_fill;
    double fill = blocks > 0 && blocks < full ? double(full) / double(blocks) : 1.0;
    return std::max(double(bytes) / d_.bandwidth_bytes_per_s, flops / d_.flops_per_s) * fill * 1e6 + d_.launch_us;
}

// (nvfuser_2146's inner-outer kernel on the H100: 280 us, the roofline's max 127 us.)
double CostModel::phased_kernel_us(int64_t bytes, double flops, int64_t blocks, int64_t shared_per_block) const {
    const int64_t resident = std::max<int64_t>(1, d_.shared_memory_per_sm / std::max<int64_t>(1, shared_per_block));
    if (resident > 1) return kernel_us(bytes, flops, blocks);
    return kernel_us(bytes, 0, blocks) + kernel_us(0, flops, blocks) - d_.launch_us;
}

double CostModel::stream_us(int64_t bytes, int launches) const {
    return double(bytes) / d_.bandwidth_bytes_per_s * 1e6 + d_.launch_us * launches;
}

double CostModel::choice_us(const KernelChoice &kc, int64_t root_bytes) const {
    if (kc.split_func < 0) {
        const int64_t dram = kc.bytes_read + kc.rewalk_bytes + root_bytes;
        const auto l2 = int64_t(double(kc.l2_bytes) * d_.bandwidth_bytes_per_s / d_.l2_bandwidth_bytes_per_s);
        return kernel_us(std::max(dram, l2), kc.flops, kc.blocks) + kc.extra_launches * d_.launch_us;
    }
    // Zero the partials; sum the slices (all the reading and arithmetic); the root's blocks add them.
    return kernel_us(kc.split_bytes, 0, kc.split_blocks) +
           kernel_us(kc.bytes_read + kc.split_bytes, kc.flops, kc.split_blocks) +
           kernel_us(kc.split_bytes + root_bytes, 0, kc.blocks);
}

namespace {

// How many times a Func's box per block must exceed the calls its readers make of it for the
// calls to count instead (CostModel::kernel_reads).
constexpr double kWidenedBox = 4.0;

// The points of leaf `p` one block loads when every reader of it in the kernel reads it at
// data-dependent points, one point per site per point of the reader: at most the readers' points
// times their sites. -1 when some reader reads it otherwise (a box is then the footprint) or is a
// reduction (each of its points reads many).
int64_t gathered_points(const FuncGraph &g, int p, int root, const std::vector<bool> &inside,
                        const std::vector<Region> &per_block) {
    int64_t points = 0;
    for (int e : g.nodes[size_t(p)].out_edges) {
        const FuncEdge &E = g.edges[size_t(e)];
        const int c = E.consumer;
        if ((c != root && !inside[size_t(c)]) || per_block[size_t(c)].empty()) continue;
        if (E.access != Access::DataDependent || g.nodes[size_t(c)].is_reduction()) return -1;
        points += region_points(per_block[size_t(c)]) * E.sites;
    }
    return points > 0 ? points : -1;
}

// Whether a reduction in the kernel (not its root) reads leaf `p` and is computed whole in each
// block: a total reduction (or one whose points every block needs) recomputed per block of its
// reader's kernel, whose every block then reads its inputs again, from L2 where they fit.
bool read_whole_per_block(const FuncGraph &g, int p, int root, const std::vector<bool> &inside,
                          const std::vector<Region> &whole, const std::vector<Region> &per_block) {
    for (int e : g.nodes[size_t(p)].out_edges) {
        const int c = g.edges[size_t(e)].consumer;
        if (c == root || !inside[size_t(c)] || !g.nodes[size_t(c)].is_reduction()) continue;
        if (!per_block[size_t(c)].empty() && region_points(per_block[size_t(c)]) == region_points(whole[size_t(c)]))
            return true;
    }
    return false;
}

}  // namespace

void CostModel::kernel_reads(const FuncGraph &g, int root, const std::vector<bool> &inside,
                             const std::vector<Region> &whole, const std::vector<Region> &per_block, int64_t blocks,
                             KernelChoice &kc, bool inlined, bool every_call,
                             const std::vector<bool> *recomputed) const {
    kc.bytes_read = 0;
    kc.l2_bytes = 0;
    kc.flops = 0;
    kc.recompute_offender = -1;
    kc.recompute_factor = 1;
    // Members recomputed wherever they are read: through a stencil or a resampling (a pyramid's
    // 2x2 average) that many times per point of the consumer, and so on down a chain of them.
    std::vector<double> recompute(g.nodes.size(), 1.0);
    for (int p = root - 1; (inlined || recomputed) && p >= 0; p--) {
        // (A fused reduction is computed per block, or per point where read one to one: not again
        // at each tap. Its region per block counts its points.)
        if (!inside[size_t(p)] || g.nodes[size_t(p)].is_reduction()) continue;
        if (!inlined && !(*recomputed)[size_t(p)]) continue;
        double m = 1;
        for (int e : g.nodes[size_t(p)].out_edges) {
            const FuncEdge &E = g.edges[size_t(e)];
            if (E.consumer != root && !inside[size_t(E.consumer)]) continue;
            const bool spread = E.access == Access::Stencil || E.access == Access::Remap;
            m = std::max(m, recompute[size_t(E.consumer)] * (spread ? E.sites : 1));
        }
        recompute[size_t(p)] = m;
        if (m > kGreedyRecompute && kc.recompute_offender < 0) kc.recompute_offender = p, kc.recompute_factor = m;
    }
    // Points of each Func the kernel evaluates per block: its box (the region its readers need,
    // times its recompute factor), or, for a Func that is no reduction and whose readers in the
    // kernel are none, the calls those readers make where the box is kWidenedBox times more: a Func
    // inlined under a mirrored boundary condition has the whole image as its box (Halide bounds a
    // select of mirrored coordinates by both branches), yet each call evaluates one point. (Not
    // where the two are near: a stencil's box and calls differ by its halo and its taps' overlap,
    // which the recompute factor already weighs.) -1: not in the kernel.
    std::vector<double> evals(g.nodes.size(), -1.0);
    // The calls the readers in the kernel make of `p` per block, -1 where some reader is a
    // reduction (each of its points calls it at every step) or is not counted.
    auto calls_of = [&](int p) {
        double calls = 0;
        for (int e : g.nodes[size_t(p)].out_edges) {
            const FuncEdge &E = g.edges[size_t(e)];
            const int c = E.consumer;
            if (c != root && !inside[size_t(c)]) continue;
            if (evals[size_t(c)] < 0 || g.nodes[size_t(c)].is_reduction()) return -1.0;
            calls += evals[size_t(c)] * E.sites;
        }
        return calls > 0 ? calls : -1.0;
    };
    if (!per_block[size_t(root)].empty()) evals[size_t(root)] = double(region_points(per_block[size_t(root)]));
    // The calls that reductions in the kernel make of `p` at every step of each point's RDom, where
    // `p` is inlined into them: a resampling's weights, two sines of the tap's distance, evaluated
    // 18 times per output pixel, not once per point of their box (measured on the H200, a user's
    // Lanczos downsampling took 146 us with them inlined, 47 with them stored; the model had
    // counted 18 evaluations per block).
    auto calls_at_steps = [&](int p) {
        double calls = 0;
        for (int e : g.nodes[size_t(p)].out_edges) {
            const FuncEdge &E = g.edges[size_t(e)];
            const int c = E.consumer;
            if ((c != root && !inside[size_t(c)]) || !g.nodes[size_t(c)].is_reduction() || evals[size_t(c)] < 0)
                continue;
            const FuncNode &C = g.nodes[size_t(c)];
            if (C.rdom_runs_per_point()) calls += evals[size_t(c)] * double(C.reduction_points) * E.sites;
        }
        return calls;
    };
    for (int p = root - 1; p >= 0; p--) {
        if (!inside[size_t(p)] || per_block[size_t(p)].empty()) continue;
        const double box = double(region_points(per_block[size_t(p)])) * recompute[size_t(p)];
        const double calls = g.nodes[size_t(p)].is_reduction() ? -1.0 : calls_of(p);
        evals[size_t(p)] = calls >= 0 && box > kWidenedBox * calls ? calls : box;
        // (Only for transcendental math: a boundary condition's clamps and mirrors, inlined into a
        // register tile's unrolled window, are shared among the thread's rows and steps.)
        if (inlined && !g.nodes[size_t(p)].is_reduction() && g.nodes[size_t(p)].math_calls > 0)
            evals[size_t(p)] = std::max(evals[size_t(p)], calls_at_steps(p));
    }
    for (size_t p = 0; p < g.nodes.size(); p++) {
        if (per_block[p].empty()) continue;
        const FuncNode &n = g.nodes[p];
        bool leaf = int(p) != root && !inside[p];
        if (leaf) {
            int64_t once = region_points(whole[p]) * n.elem_bytes;
            int64_t again = region_points(per_block[p]) * n.elem_bytes * blocks;
            // A gather (table[ids]): bounds give a block the whole producer, but each point of its
            // readers loads `sites` points of it. Counting the box per block made embedding_gather's
            // 131 MB table read once per block (2.1 TB).
            // Nor the whole table once, where its readers load fewer points than it has (a loss
            // reading each row's label logit: 4096 points of a 134 MB table).
            if (int64_t gathered = gathered_points(g, int(p), root, inside, per_block); gathered >= 0) {
                again = std::min(again, gathered * n.elem_bytes * blocks);
                once = std::min(once, again);
            }
            // (Nor more than its readers' calls: a box widened by a mirrored boundary condition.)
            const double calls = calls_of(int(p));
            if (calls >= 0 && double(region_points(per_block[p])) > kWidenedBox * calls)
                again = std::min(again, int64_t(calls) * n.elem_bytes * blocks);
            if (every_call && calls >= 0) {
                kc.bytes_read += std::max(once, int64_t(calls) * n.elem_bytes);
            } else if (once <= d_.l2_bytes / 2) {
                kc.bytes_read += once;
                if (read_whole_per_block(g, int(p), root, inside, whole, per_block))
                    kc.l2_bytes += std::max(once, again);
            } else {
                kc.bytes_read += std::max(once, again);
            }
        } else {
            // (FuncNode::rdom_runs_per_point: else its RDom runs once for the whole Func.)
            const double runs = double(region_points(per_block[p])) * double(blocks) /
                                (n.rdom_runs_per_point() ? 1.0 : double(std::max<int64_t>(1, n.points())));
            kc.flops +=
                double(n.instrs_per_point) * evals[p] * double(blocks) + double(n.reduction_points) * 2.0 * runs;
        }
    }
}

double CostModel::step_flops(const FuncGraph &g, const std::vector<bool> &inside, const std::vector<Region> &per_block,
                             int64_t blocks, const std::set<int> &once) const {
    double flops = 0;
    for (size_t p = 0; p < g.nodes.size(); p++) {
        const FuncNode &n = g.nodes[p];
        if (!inside[p] || n.is_reduction() || n.math_calls == 0 || once.count(int(p))) continue;
        for (int e : n.out_edges) {
            const FuncEdge &E = g.edges[size_t(e)];
            const FuncNode &C = g.nodes[size_t(E.consumer)];
            if (!inside[size_t(E.consumer)] || !C.is_reduction() || !C.rdom_runs_per_point() ||
                per_block[size_t(E.consumer)].empty())
                continue;
            flops += double(n.instrs_per_point) * double(region_points(per_block[size_t(E.consumer)])) *
                     double(C.reduction_points) * double(E.sites) * double(blocks);
        }
    }
    return flops;
}

}  // namespace solder::autosched
