#include "schedules/launch_shapes.h"

#include <algorithm>
#include <set>

#include "autosched/model/contraction.h"
#include "autosched/model/kernel_leaves.h"
#include "autosched/model/pipeline_funcs.h"
#include "schedules/horizontal/horizontal.h"
#include "schedules/pointwise/register_tile.h"
#include "schedules/registry.h"
#include "schedules/split_k/split_k_plan.h"
#include "schedules/split_k/split_k_schedule.h"

namespace solder::autosched {

std::string stage_name(const FuncNode &n, int stage) {
    return stage == 0 ? n.name : n.name + ".update(" + std::to_string(stage - 1) + ")";
}

std::vector<int64_t> stage_extents(const FuncNode &n, int stage) {
    std::vector<int64_t> e;
    if (n.is_input) return e;
    for (auto &v : stage_pure_vars(n.function, stage)) {
        const size_t d = size_t(std::find(n.dims.begin(), n.dims.end(), v.name()) - n.dims.begin());
        e.push_back(d < n.region.size() ? n.region[d].extent() : 1);
    }
    return e;
}

LaunchShape own_kernel_stage(const FuncNode &n, int stage, GridMap grid, int threads) {
    LaunchShape s;
    s.stage = stage_name(n, stage);
    std::vector<int64_t> e = stage_extents(n, stage);
    if (e.empty()) return s;  // gpu_single_thread
    e[0] = blocks_of(e[0], threads);
    set_grid(s, e, 1, grid);
    s.threads[0] = threads;
    return s;
}

LaunchShape tiled_stage(const std::string &stage, std::vector<int64_t> e, int tx, int ty, int threads_1d,
                        GridMap grid) {
    LaunchShape s;
    s.stage = stage;
    if (e.size() >= 2) {
        e[0] = blocks_of(e[0], tx);
        e[1] = blocks_of(e[1], ty);
        set_grid(s, e, 2, grid);
        s.threads[0] = tx, s.threads[1] = ty;
    } else if (e.size() == 1) {
        const int t = threads_1d > 0 ? threads_1d : 256;
        s.grid[0] = blocks_of(e[0], t);
        s.threads[0] = t;
    }
    return s;
}

LaunchShape flat_stage(const std::string &stage, const std::vector<int64_t> &e, int grid_dims, int threads,
                       GridMap grid) {
    LaunchShape s;
    s.stage = stage;
    if (e.empty()) return s;
    const size_t inner = e.size() - size_t(std::clamp(grid_dims, 0, int(e.size()) - 1));
    int64_t flat = 1;
    for (size_t d = 0; d < inner; d++) flat *= e[d];
    std::vector<int64_t> blocks{blocks_of(flat, threads)};
    blocks.insert(blocks.end(), e.begin() + long(inner), e.end());
    set_grid(s, blocks, 1, grid);
    s.threads[0] = threads;
    return s;
}

int threads_filling_sms(int64_t extent, int64_t rows, const DeviceProfile &d) {
    int t = 256;
    while (t > 32 && blocks_of(extent, t) * rows < 4 * int64_t(d.sms)) t /= 2;
    return t;
}

std::vector<LaunchShape> own_kernel_shapes(const FuncNode &n, GridMap grid, int threads) {
    std::vector<LaunchShape> out;
    for (int stage = 0; stage <= n.updates; stage++) out.push_back(own_kernel_stage(n, stage, grid, threads));
    return out;
}

KernelChoice choice_of(const FuncGraph &g, const KernelPlan &k, int inner_dims) {
    KernelChoice kc;
    kc.kind = k.kind();
    kc.inner_dims = inner_dims;
    for (auto &f : k.funcs) {
        const int m = g.find(f);
        if (m >= 0 && f != k.root) kc.members.push_back(m);
    }
    return kc;
}

std::vector<int> at_block_nodes(const ShapeContext &c, const KernelPlan &k) {
    std::vector<int> at;
    for (auto &fp : c.plan.funcs) {
        const int m = c.g.find(fp.func);
        if (m >= 0 && fp.anchor == k.root && fp.placement == Placement::ComputeAtBlock) at.push_back(m);
    }
    return at;
}

int64_t padded_bytes(int64_t extent0, int64_t rest, int64_t elem, bool mixed) {
    const int64_t per_word = std::max<int64_t>(1, 8 / std::max<int64_t>(1, elem));
    if (mixed && elem < 8) extent0 = blocks_of(extent0, per_word) * per_word;
    return extent0 * rest * elem;
}

int64_t block_shared_bytes(const ShapeContext &c, const KernelPlan &k, const std::vector<Region> &per_block,
                           bool mixed) {
    int64_t bytes = 0;
    for (int m : at_block_nodes(c, k)) {
        const Region &r = per_block[size_t(m)];
        if (r.empty()) continue;
        const int64_t e0 = std::max<int64_t>(1, r[0].extent());
        bytes += padded_bytes(e0, region_points(r) / e0, c.g.nodes[size_t(m)].elem_bytes, mixed);
    }
    return bytes;
}

std::vector<LaunchShape> split_k_shapes(const ShapeContext &c, const KernelPlan &k) {
    std::vector<LaunchShape> out;
    if (!k.split || !k.split->launched_with.empty()) return out;
    const SplitK &sk = *k.split;
    const int f = c.g.find(sk.func);
    if (f < 0) return out;
    const FuncNode &F = c.g.nodes[size_t(f)];
    // Blocks over the partials' strips of 256 threads along their innermost dim, their other dims
    // and the slices (schedules/split_k/split_k_schedule.cpp, lay_out_partials).
    std::vector<int64_t> blocks;
    int threads_x = kSplitThreads, threads_y = 1;
    if (sk.group.empty() && sk.contraction_dy > 0 && size_t(sk.contraction_dy) < F.region.size()) {
        // Contraction tiles (schedule_contraction_tile_root): 16 x 16 threads, 4 x 4 results each,
        // over dims contraction_dx and contraction_dy, the slices a grid dim.
        const int dx = std::max(0, sk.contraction_dx);
        blocks.push_back(blocks_of(F.region[size_t(dx)].extent(), kContractionSpan));
        blocks.push_back(blocks_of(F.region[size_t(sk.contraction_dy)].extent(), kContractionSpan));
        blocks.push_back(sk.slices);  // (the other dims loop in each block)
        threads_x = threads_y = kContractionThreads;
    } else if (sk.group.empty()) {
        for (auto &r : F.region) blocks.push_back(r.extent());
        if (blocks.empty()) blocks.push_back(1);
        if (sk.interleaved && blocks.size() >= 2) blocks[1] *= blocks[0], blocks.erase(blocks.begin());
        blocks[0] = blocks_of(blocks[0], kSplitThreads);
        blocks.push_back(sk.slices);
    } else {
        auto d = domain_points(c.g, f);
        if (!d) return out;
        blocks.push_back(blocks_of(d->ranges[0].extent(), kSplitThreads * std::max(1, sk.vector)));
        for (size_t p = 1; p < d->ranges.size(); p++)
            if (int(p) != sk.dim) blocks.push_back(d->ranges[p].extent());
        blocks.push_back(sk.dim >= 0 && size_t(sk.dim) < d->ranges.size() && sk.rows > 0
                             ? blocks_of(d->ranges[size_t(sk.dim)].extent(), sk.rows)
                             : sk.slices);
    }
    for (const char *what : {".zero", ".sum"}) {
        LaunchShape s;
        s.stage = sk.partials + what;
        set_grid(s, blocks, threads_y > 1 ? 2 : 1, c.grid);
        s.threads[0] = threads_x, s.threads[1] = threads_y;
        out.push_back(s);
    }
    // (Contraction tiles' partials are zeroed along their innermost dims: zero_coalesced.)
    if (threads_y > 1) {
        std::vector<int64_t> e;
        for (auto &r : F.region) e.push_back(r.extent());
        e.push_back(sk.slices);
        out[0] = flat_stage(sk.partials + ".zero", e, kZeroGridDims, int(kSplitThreads), c.grid);
    }
    return out;
}

namespace {

// The longest RVar a split reduction `func` has left once rfactor has taken its partials out: the
// slices, or another position of a shared domain its partials keep (schedules/split_k). 0: not split.
int64_t partials_left(const ShapeContext &c, const std::string &func) {
    auto shared = [&](int dim, int64_t rows, int64_t slices) {
        auto d = domain_points(c.g, c.g.find(func));
        if (!d || dim < 0 || size_t(dim) >= d->ranges.size()) return slices;
        int64_t longest = rows > 0 ? blocks_of(d->ranges[size_t(dim)].extent(), rows) : slices;
        for (size_t p = 0; p < d->ranges.size(); p++)
            if (int(p) != dim && d->domain.reduced[p]) longest = std::max(longest, d->ranges[p].extent());
        return longest;
    };
    for (auto &k : c.plan.kernels) {
        if (const auto *io = k.get<InnerOuterParams>())
            for (auto &f : io->column_sums)
                if (f == func) return shared(io->dim, io->rows, io->slices);
        if (!k.split) continue;
        const SplitK &sk = *k.split;
        if (sk.group.empty() && sk.func == func) return sk.slices;
        for (auto &f : sk.group)
            if (f == func) return shared(sk.dim, sk.rows, sk.slices);
    }
    return 0;
}

}  // namespace

std::vector<LaunchShape> horizontal_shapes(const ShapeContext &c, const KernelPlan &k) {
    std::vector<std::string> roots{k.root};
    roots.insert(roots.end(), k.with.begin(), k.with.end());
    std::vector<LaunchShape> out;
    for (int stage = 0; stage <= c.root_node().updates; stage++) {
        LaunchShape s;
        s.stage = stage_name(c.root_node(), stage) + " (horizontal)";
        // Fused block loops (compute_with) run as far as the longest root's; the block is as wide
        // as the widest root's tile. A root that adds split-K partials spreads them over
        // kPartialLanes lanes (thread y) where they divide evenly: a tile of 256 / kPartialLanes
        // results, their lanes' sums in shared memory (schedules/horizontal/horizontal_schedule.cpp).
        s.threads[0] = 0;
        for (auto &r : roots) {
            const int n = c.g.find(r);
            if (n < 0 || c.g.nodes[size_t(n)].region.empty()) continue;
            const FuncNode &R = c.g.nodes[size_t(n)];
            const int64_t left = stage == 1 && R.updates == 1 ? partials_left(c, r) : 0;
            const bool spread = left % kPartialLanes == 0 && left / kPartialLanes >= 2;
            const int64_t tile = spread ? 256 / kPartialLanes : 256;
            s.grid[0] = std::max(s.grid[0], blocks_of(R.region[0].extent(), tile));
            s.threads[0] = std::max(s.threads[0], tile);
            if (spread) {
                s.threads[1] = kPartialLanes;
                s.shared_bytes += tile * kPartialLanes * R.elem_bytes;
            }
        }
        s.threads[0] = std::max<int64_t>(s.threads[0], 1);
        out.push_back(s);
    }
    return out;
}

std::vector<LaunchShape> kernel_launch_shapes(const ShapeContext &c, const KernelPlan &k) {
    // (A horizontal kernel keeps split-K fields only where its first root launches partials.)
    std::vector<LaunchShape> out = split_k_shapes(c, k);
    // (Sibling launches: every root in the first one's blocks, which its template lays out.)
    auto own = k.with.empty() || sibling_kernel(k, c.root_node().dims.size())
                   ? kernel_template(k.kind()).launch_shapes(c, k)
                   : horizontal_shapes(c, k);
    out.insert(out.end(), own.begin(), own.end());
    return out;
}

}  // namespace solder::autosched
