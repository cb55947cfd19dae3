#include "schedules/row/row_launches.h"

#include <algorithm>
#include <set>

#include "schedules/row/row_blocks.h"
#include "schedules/writer/block_reduce.h"

namespace solder::autosched {

namespace {

// The lanes block_level splits a reduction over (schedules/writer/block_reduce.cpp): up to
// `max_lanes`, about 4 elements each for a short row of constant length.
int64_t reduction_lanes(const FuncNode &m, int rows, int64_t max_lanes) {
    int64_t lanes = 256 / rows;
    const auto &rvars = m.function.update(0).schedule().rvars();
    if (auto n = Halide::Internal::as_const_int(Halide::Internal::simplify(rvars[0].extent)))
        while (lanes > 8 && lanes * 4 > *n) lanes /= 2;
    return std::min(max_lanes, lanes);
}

// The shared memory of the lane-split partials of a Func computed per block (block_level: a
// reduction over one RVar with at most 8 results per row of the block, `row_points`), and their
// second level: the Func's region per block (`r`: all the block's rows) times the lanes.
int64_t lane_partial_bytes(const FuncNode &m, int64_t row_points, const Region &r, int rows, int64_t max_lanes,
                           bool mixed) {
    if (m.is_input || m.updates != 1 || m.function.update(0).schedule().rvars().size() != 1 || row_points > 8) return 0;
    const int64_t lanes = reduction_lanes(m, rows, max_lanes);
    const int64_t extent0 = r.empty() ? 1 : std::max<int64_t>(1, r[0].extent());
    const int64_t rest = (r.empty() ? 1 : region_points(r)) / extent0;
    int64_t bytes = padded_bytes(extent0, rest * lanes, m.elem_bytes, mixed);
    if (lanes >= 32) bytes += padded_bytes(extent0, rest * (lanes >= 256 ? 16 : lanes / 8), m.elem_bytes, mixed);
    return bytes;
}

}  // namespace

LaunchShape row_launch_shape(const ShapeContext &c, const KernelPlan &k) {
    const FuncNode &O = c.root_node();
    const RowParams &p = *k.get<RowParams>();
    const int rank = int(O.dims.size());
    const int inner = std::max(1, std::min(p.inner_dims, rank));
    LaunchShape s;
    s.stage = O.name;
    std::vector<int64_t> outer;
    for (int d = inner; d < rank; d++) outer.push_back(O.region[size_t(d)].extent());
    std::vector<const FuncPlan *> at;
    std::set<int64_t> sizes;  // element sizes on chip: mixed, each allocation is padded to 8-byte words
    for (auto &fp : c.plan.funcs)
        if (fp.anchor == k.root && fp.placement == Placement::ComputeAtBlock && c.g.find(fp.func) >= 0) {
            at.push_back(&fp);
            sizes.insert(c.g.nodes[size_t(c.g.find(fp.func))].elem_bytes);
        }
    for (auto &st : p.staged)
        if (c.g.find(st.func) >= 0) sizes.insert(c.g.nodes[size_t(c.g.find(st.func))].elem_bytes);
    const bool mixed = sizes.size() > 1;
    if (p.warps > 0 && rank > inner) {
        // Warps along one row per block (CUDA): 32 lanes x warps, each reduction's last level per
        // block in shared memory, two values per warp.
        set_grid(s, outer, 0, c.grid);
        s.threads[0] = 32, s.threads[1] = p.warps;
        const auto per_block = row_block_regions(c.g, c.root, choice_of(c.g, k, inner));
        s.shared_bytes = block_shared_bytes(c, k, per_block, mixed);
        for (auto *fp : at) s.shared_bytes += 2 * p.warps * c.g.nodes[size_t(c.g.find(fp->func))].elem_bytes;
        return s;
    }
    const int rows = rank > inner ? std::max(1, p.rows_per_block) : 1;
    const int64_t tx = p.row_threads > 0 ? p.row_threads : p.warps > 0 ? 32 * p.warps : 256 / rows;
    if (outer.empty()) {
        s.grid[0] = blocks_of(O.region[0].extent(), tx * std::max(1, p.vector_width));
    } else {
        outer[0] = blocks_of(outer[0], rows);
        set_grid(s, outer, rows > 1 ? 1 : 0, c.grid);  // (several rows per block: a tile count)
    }
    // Halide sizes the block by each thread dim's largest extent over the stages computed in it.
    s.threads[0] = tx, s.threads[1] = rows;
    const auto per_block = row_block_regions(c.g, c.root, choice_of(c.g, k, inner), rows);
    s.shared_bytes = block_shared_bytes(c, k, per_block, mixed);
    for (auto *fp : at) {
        const int m = c.g.find(fp->func);
        const FuncNode &M = c.g.nodes[size_t(m)];
        const Region &r = per_block[size_t(m)];
        int64_t x = 1;
        if (!fp->row_dim.empty() && rows > 1)
            x = rows;
        else if (!M.dims.empty() && !r.empty())  // in strips of the row's threads past a block's most
            x = fp->block_points > kMaxBlockThreads ? std::min(r[0].extent(), tx)
                : fp->thread_extent > 0             ? fp->thread_extent
                                                    : r[0].extent();
        s.threads[0] = std::max(s.threads[0], x);
        s.shared_bytes += lane_partial_bytes(M, fp->block_points, r, rows, tx, mixed);
    }
    for (auto &st : p.staged) {  // loaded by 256 threads along a row, or the block's own (stage_in_block)
        s.threads[0] = std::max<int64_t>(s.threads[0], rows > 1 ? tx : 256);
        const int m = c.g.find(st.func);
        const int64_t elem = m >= 0 ? c.g.nodes[size_t(m)].elem_bytes : 1;
        const int64_t row = std::max<int64_t>(1, st.row_extent);
        s.shared_bytes += padded_bytes(row, std::max<int64_t>(1, st.bytes_per_block / (row * elem)), elem, mixed);
    }
    return s;
}

}  // namespace solder::autosched
