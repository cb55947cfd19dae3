#include "schedules/writer/block_reduce.h"

#include <algorithm>
#include <set>

#include "autosched/model/pipeline_funcs.h"
#include "schedules/writer/reduction_walk.h"
#include "schedules/writer/warp_reduction.h"

namespace solder {
using namespace Halide;

Var blocks_over(ScheduleWriter &w, const StageRef &s, const std::vector<VarOrRVar> &dims, const std::string &tag,
                int tile_dims) {
    return gpu_blocks_over(w, s, dims, tag, tile_dims).var;
}

// Works around Halide issue 6803 (still in 21): Funcs computed per block share one shared-memory
// allocation, and the offset of each in units of the next one's type is rounded down, so a
// 35-int Func followed by an int64 one overlapped it by 4 bytes (random pipeline seed 100019).
// Padding the innermost dim to a multiple of 8 bytes makes every allocation a whole number of
// 8-byte words. Only where the Funcs of one block mix element sizes (it costs blur a third of its
// speed: its tile rows no longer match its threads).
bool mixed_element_sizes(const std::vector<Func> &fs) {
    std::set<int> sizes;
    for (auto &f : fs)
        for (auto &t : f.types()) sizes.insert(t.bytes());
    return sizes.size() > 1;
}

void pad_block_allocation(ScheduleWriter &w, Func f, bool mixed) {
    if (!mixed) return;
    int smallest = 8;
    for (auto &t : f.types()) smallest = std::min(smallest, std::max(1, t.bytes()));
    if (f.dimensions() > 0 && smallest < 8) w.align_storage(f, Var(f.function().args()[0]), 8 / smallest);
}

// A block-level reduction with at most this many results is split across the block's threads.
constexpr int64_t kMaxPointsToSplit = 8;

// Threads a block-level reduction is split over: 256 for long rows; for short ones (puzzler's
// 64-wide slices) about 4 elements per thread, so most lanes are not idle, and no second level.
int reduction_lanes(const Expr &extent, int rows) {
    std::optional<int64_t> n = Internal::as_const_int(extent);
    if (!n) return 256 / rows;
    int lanes = 256 / rows;
    while (lanes > 8 && int64_t(lanes) * 4 > *n) lanes /= 2;
    return lanes;
}

// Lane vars (and the RVars of the split) share one name in every reduction of a kernel:
// compute_with matches the fused loops by name.
const Var kLane("lane"), kLane2("lane2");

// rfactor appends the lane to a partial's dims, so in shared memory the lanes of one row lay a
// row apart: with 32 rows per block, a warp's 32 lanes stored to one bank (ncu counted 18.7-way
// conflicts on the inner-outer kernel's shared stores). Lanes innermost, they are neighbours.
void lanes_innermost(ScheduleWriter &w, Func partial, const Var &lane) {
    std::vector<Var> order{lane};
    for (auto &a : partial.function().args())
        if (a != lane.name()) order.emplace_back(a);
    w.reorder_storage(partial, order);
}

// A Func computed once per block: its pure dim `thread_dim` (else its first) spread over threads
// when it has any. A reduction with one RVar is split across the block's threads first (rfactor):
// up to 256 partial results, each thread striding over the row (coalesced), then (for 256) 16
// threads add 16 partials each, then one thread adds the rest.
// With `rows` > 1 the block owns that many rows: the reduction's pure dim named `row_dim` is the
// thread dim after the lanes (thread y, as the root's rows are), so the rows are reduced at once.
// Every stage maps the same dims to the same thread dims: Halide sizes the block by the largest
// extent of each, over all stages. At most `max_lanes` lanes: the root's threads along a row (a
// short row's warp), so the reduction does not widen the block.
// With `warps` > 0 (CUDA, the root's threads laid out as warps x lanes) the reduction is summed by
// warp shuffles instead (warp_shuffle_reduction), `vector` neighbours per access.
LaneSplit block_level(ScheduleWriter &w, Func f, int64_t points, int rows, int max_lanes, const std::string &row_dim,
                      const std::string &thread_dim, Func root, const Var &at, const Target &t, bool mixed, int warps,
                      int vector, int exact_lanes, int64_t thread_extent) {
    LaneSplit split;
    w.compute_at(f, root, at);
    if (!is_gpu_target(t)) return split;
    pad_block_allocation(w, f, mixed);
    auto fn = f.function();
    auto has_row_dim = [&](const std::vector<VarOrRVar> &pure) {
        for (auto &p : pure)
            if (!row_dim.empty() && p.name() == row_dim) return true;
        return false;
    };
    // More points per block than a block may have threads (a row of a convolution 2048 wide): the
    // innermost dim in strips as wide as the root's threads along a row, each thread looping over
    // the strips. Threaded whole, the block would be as wide as the row, which the device refuses.
    const bool strips = points > kMaxBlockThreads && max_lanes > 0;
    // With `thread_extent`: the threaded dim split by it (the Func's extent per block at the
    // estimates), that many threads, and a loop around them for whatever is left. Threaded whole,
    // the block is as wide as the dim's largest extent over every block, which Halide bounds by
    // interval arithmetic over the block index: where the rows a block needs are a union of clamped
    // windows (a row mean read by a stencil along y, or through a 2 x 2 resampling), that came to
    // the whole image's rows, 1536 threads a block at 2048 x 1536, though each block needs one to
    // three. Only for a Func of one pure dim: with two (a group normalization's sums over groups
    // and samples, puzzler's slices), the split made Halide read the input past its channels
    // (group_norm on OpenCL); and the row template passes none for one point in a kernel that
    // writes side outputs, where the split made Halide size the Func's shared memory for fewer rows
    // than the loop over its guarded, unioned rows wrote, and the final sum overwrote the partials
    // it was adding (an RMS 16 times too large on OpenCL).
    const int64_t threads = std::min<int64_t>(thread_extent, kMaxBlockThreads);
    // The pure var the block's threads cover: `thread_dim` where the planner named one, else the
    // first.
    auto threaded = [&](const std::vector<VarOrRVar> &pure) {
        for (auto &p : pure)
            if (!thread_dim.empty() && p.name() == thread_dim) return p;
        return pure[0];
    };
    auto thread_stage = [&](const StageRef &st, const std::vector<VarOrRVar> &pure) {
        if (has_row_dim(pure)) {
            w.gpu_threads(st, Var(row_dim));
        } else if (pure.empty()) {
            w.one_thread_of_block(st);
        } else if (strips) {
            Var so(f.name() + "_strip"), si(f.name() + "_strip_t");
            w.split(st, threaded(pure), so, si, max_lanes, TailStrategy::GuardWithIf);
            w.gpu_threads(st, si);
        } else if (threads <= 0 || pure.size() > 1) {
            w.gpu_threads(st, threaded(pure));
        } else {
            Var so(f.name() + "_few"), t(f.name() + "_few_t");
            w.split(st, threaded(pure), so, t, int(threads), TailStrategy::GuardWithIf);
            w.gpu_threads(st, t);
        }
    };
    auto lane_threads = [&](const StageRef &st, const Var &lane) {
        auto pure = stage_pure_vars(st.func.function(), st.update + 1);
        if (has_row_dim(pure)) {
            // Adjacent thread loops: the lanes, the rows, then the other pure dims (extent 1).
            std::vector<VarOrRVar> order{lane, Var(row_dim)};
            for (auto &p : pure)
                if (p.name() != lane.name() && p.name() != row_dim) order.push_back(p);
            w.reorder(st, order);
            w.gpu_threads(st, lane, Var(row_dim));
        } else {
            w.gpu_threads(st, lane);
        }
    };
    thread_stage({f}, stage_pure_vars(fn, 0));
    for (int u = 0; u < int(fn.updates().size()); u++) {
        const auto &rvars = fn.update(u).schedule().rvars();
        // Only for a few results per block (a row's mean): the partials take 256 x points of shared
        // memory, and many results per block already keep the threads busy over their pure dims.
        if (warps > 0) {
            // (The planner checked the reductions: one RVar, one value per block, an extent of one
            // or a multiple of the block's lanes.)
            auto n = Internal::as_const_int(rvars.empty() ? Expr() : rvars[0].extent);
            if (u == 0 && fn.updates().size() == 1 && rvars.size() == 1 && points == 1 && n && *n > 1)
                pad_block_allocation(w, warp_shuffle_reduction(w, f, root, at, warps, vector), mixed);
        } else if (u == 0 && fn.updates().size() == 1 && rvars.size() == 1 && points <= kMaxPointsToSplit) {
            RVar r(rvars[0].var), ro("lane_walk"), ri("lane_ri");
            const Expr extent = rvars[0].extent;  // `rvars` changes with the split below
            const int lanes = exact_lanes > 0 ? exact_lanes : std::min(max_lanes, reduction_lanes(extent, rows));
            w.split({f, 0}, r, ro, ri, lanes, TailStrategy::GuardWithIf);
            Func partial = w.rfactor({f, 0}, ri, kLane);
            if (exact_lanes > 0) {
                // The walk in each thread's registers, then one store of each lane's sum to a
                // shared copy (a global wrapper: the second level, rfactored below, reads it too).
                // Summed in shared memory, every step of the walk was a shared load and store.
                Func walked = partial;
                partial = w.in(walked, {});
                w.compute_at(partial, root, at);
                lanes_innermost(w, partial, kLane);
                pad_block_allocation(w, partial, mixed);
                lane_threads({partial}, kLane);
                w.compute_at(walked, partial, kLane);
                w.reorder({walked, 0}, {ro, kLane});
                unroll_walk(w, {walked, 0}, ro, (extent + lanes - 1) / lanes);
                split.walked = walked;
            } else {
                w.compute_at(partial, root, at);
                pad_block_allocation(w, partial, mixed);
                lane_threads({partial}, kLane);
                lane_threads({partial, 0}, kLane);
                // Each thread walks its share of the row inside its own thread loop (rfactor put
                // the walk outside it: a serial loop around a thread loop, where unrolling made
                // eight thread loops with a barrier between each), unrolled so its loads are in
                // flight together.
                w.reorder({partial, 0}, {ro, kLane});
                unroll_walk(w, {partial, 0}, ro, (extent + lanes - 1) / lanes);
            }
            split.f = f;
            split.partial = partial;
            split.lanes = lanes;
            if (auto n = Internal::as_const_int(extent)) split.extent = *n;
            // The 256 partials again across 16 threads, 16 each, so the last serial pass adds 16
            // values, not 256: a dependent chain of shared-memory loads is what it costs.
            const auto &left = f.function().update(0).schedule().rvars();
            if (left.size() == 1 && lanes >= 32) {
                // 256 lanes: 16 x 16; a warp's 32 (several rows per block): 4 x 8.
                const int second = lanes >= 256 ? 16 : lanes / 8;
                RVar r2(left[0].var), r2o("lane2_walk"), r2i("lane2_ri");
                w.split({f, 0}, r2, r2o, r2i, second, TailStrategy::GuardWithIf);
                Func partial2 = w.rfactor({f, 0}, r2i, kLane2);
                w.compute_at(partial2, root, at);
                if (exact_lanes > 0) lanes_innermost(w, partial2, kLane2);
                pad_block_allocation(w, partial2, mixed);
                lane_threads({partial2}, kLane2);
                lane_threads({partial2, 0}, kLane2);
                w.reorder({partial2, 0}, {r2o, kLane2});
                split.partial2 = partial2;
            }
        }
        thread_stage({f, u}, stage_pure_vars(fn, u + 1));
    }
    return split;
}

// Horizontal fusion inside a block: lane-split reductions that do not depend on each other and
// have the same shape run in one loop nest (compute_with), so the block passes its barriers once
// for all of them instead of once each (puzzler's 16 slice means, then its 16 variances;
// nvfuser's two row sums). Grouped by depth among the kernel's block-level reductions: two at
// the same depth cannot depend on each other, and groups by depth cannot form a cycle.
void fuse_lane_splits(ScheduleWriter &w, const std::vector<LaneSplit> &splits) {
    std::vector<const LaneSplit *> cand;
    for (auto &s : splits)
        if (s.f.defined() && s.extent > 0) cand.push_back(&s);
    std::vector<int> depth(cand.size(), 0);
    for (size_t i = 0; i < cand.size(); i++) {
        auto calls = Internal::find_transitive_calls(cand[i]->f.function());
        for (size_t j = 0; j < i; j++)
            if (calls.count(cand[j]->f.name())) depth[i] = std::max(depth[i], depth[j] + 1);
    }
    auto first_pure = [](const Func &f, int stage) {
        auto pure = stage_pure_vars(f.function(), stage);
        return pure.empty() ? std::string() : pure[0].name();
    };
    std::vector<bool> placed(cand.size(), false);
    for (size_t i = 0; i < cand.size(); i++) {
        if (placed[i]) continue;
        const LaneSplit &a = *cand[i];
        for (size_t j = i + 1; j < cand.size(); j++) {
            const LaneSplit &b = *cand[j];
            if (placed[j] || depth[j] != depth[i] || b.extent != a.extent || b.lanes != a.lanes ||
                b.partial2.defined() != a.partial2.defined() || b.walked.defined() != a.walked.defined() ||
                first_pure(b.f, 0) != first_pure(a.f, 0) || first_pure(b.f, 1) != first_pure(a.f, 1) ||
                b.f.dimensions() != a.f.dimensions())
                continue;
            placed[j] = true;
            w.compute_with({b.partial}, {a.partial}, kLane);
            if (a.walked.defined()) {
                // The shared copies in one loop nest; both walks in the first copy's threads, fused.
                w.compute_at(b.walked, a.partial, kLane);
                w.compute_with({b.walked, 0}, {a.walked, 0}, RVar("lane_walk"));
            } else {
                w.compute_with({b.partial, 0}, {a.partial, 0}, kLane);
            }
            if (b.partial2.defined()) {
                w.compute_with({b.partial2}, {a.partial2}, kLane2);
                w.compute_with({b.partial2, 0}, {a.partial2, 0}, kLane2);
            }
            // The final adds too, where they run over a pure dim (not on a single thread).
            if (!first_pure(a.f, 0).empty() && !first_pure(a.f, 1).empty()) {
                w.compute_with({b.f}, {a.f}, Var(first_pure(a.f, 0)));
                w.compute_with({b.f, 0}, {a.f, 0}, Var(first_pure(a.f, 1)));
            }
        }
    }
}

void reduce_rows_in_block(ScheduleWriter &w, const std::vector<Func> &fs, const std::vector<std::string> &row_dims,
                          int rows, int lanes, Func root, const Var &at, const Target &target) {
    std::vector<LaneSplit> splits;
    for (size_t i = 0; i < fs.size(); i++) {
        // Split across the lanes only where there is a row to split (not a sum over one point).
        const auto &upd = fs[i].function().updates();
        auto n = upd.size() == 1 && upd[0].schedule().rvars().size() == 1
                     ? Internal::as_const_int(Internal::simplify(upd[0].schedule().rvars()[0].extent))
                     : std::optional<int64_t>();
        const int64_t points = n && *n > 1 ? 1 : kMaxPointsToSplit + 1;
        splits.push_back(block_level(w, fs[i], points, rows, lanes, i < row_dims.size() ? row_dims[i] : "", "", root,
                                     at, target, true, 0, 1, lanes));
    }
    fuse_lane_splits(w, splits);
}

}  // namespace solder
