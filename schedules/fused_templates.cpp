#include "schedules/fused_templates.h"

#include <set>

#include "autosched/model/pipeline_funcs.h"
#include "schedules/writer/reduction_walk.h"
#include "schedules/writer/schedule_writer.h"
#include "schedules/split_k.h"
#include "schedules/unfused/unfused.h"
#include "schedules/writer/warp_reduction.h"

namespace solder {
using namespace Halide;

namespace {

// Marks dims as GPU blocks: up to three; extra outer dims are fused into the third.
void blocks_over(ScheduleWriter &w, const StageRef &s, const std::vector<VarOrRVar> &dims, const std::string &tag) {
    for (auto &d : fold_into_three(w, s, dims, tag)) w.gpu_blocks(s, d);
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

// What block_level did to a reduction it split across the block's lanes (f undefined: none).
struct LaneSplit {
    Func f, partial, partial2;
    // With exact lanes (the inner-outer template): `partial` is a shared-memory copy of `walked`,
    // which each thread sums in its registers.
    Func walked;
    int64_t extent = 0;  // the row length (0: not a constant)
    int lanes = 0;
};

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

// A Func computed once per block: its pure dims spread over threads when it has any. A reduction
// with one RVar is split across the block's threads first (rfactor): up to 256 partial results,
// each thread striding over the row (coalesced), then (for 256) 16 threads add 16 partials each,
// then one thread adds the rest.
// With `rows` > 1 the block owns that many rows: the reduction's pure dim named `row_dim` is the
// thread dim after the lanes (thread y, as the root's rows are), so the rows are reduced at once.
// Every stage maps the same dims to the same thread dims: Halide sizes the block by the largest
// extent of each, over all stages. At most `max_lanes` lanes: the root's threads along a row (a
// short row's warp), so the reduction does not widen the block.
// With `warps` > 0 (CUDA, the root's threads laid out as warps x lanes) the reduction is summed by
// warp shuffles instead (warp_shuffle_reduction), `vector` neighbours per access.
LaneSplit block_level(ScheduleWriter &w, Func f, int64_t points, int rows, int max_lanes, const std::string &row_dim,
                      Func root, const Var &at, const Target &t, bool mixed, int warps = 0, int vector = 1,
                      int exact_lanes = 0) {
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
    auto thread_stage = [&](const StageRef &st, const std::vector<VarOrRVar> &pure) {
        if (has_row_dim(pure)) w.gpu_threads(st, Var(row_dim));
        else if (pure.empty()) w.one_thread_of_block(st);
        else w.gpu_threads(st, pure[0]);
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
                first_pure(b.f, 0) != first_pure(a.f, 0) ||
                first_pure(b.f, 1) != first_pure(a.f, 1) || b.f.dimensions() != a.f.dimensions())
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

}  // namespace

namespace {

// A staged row: all threads of the block load it together, each `width` neighbours per access
// (16 bytes where 256 x width divides the row), before the block's stages read it.
void stage_in_block(ScheduleWriter &w, Func staged, Func root, const Var &at, int64_t row_extent, bool mixed) {
    w.compute_at(staged, root, at);
    pad_block_allocation(w, staged, mixed);
    std::vector<Var> v = pure_vars(staged);
    if (v.empty()) {
        w.one_thread_of_block({staged});
        return;
    }
    const std::string tag = staged.name();
    int width = std::max(1, 16 / std::max(1, staged.type().bytes()));
    while (width > 1 && (row_extent <= 0 || row_extent % (256 * width) != 0)) width /= 2;
    if (width == 1) {
        Var xo(tag + "_xo"), tx(tag + "_tx");
        w.split({staged}, v[0], xo, tx, 256, TailStrategy::GuardWithIf);
        w.reorder({staged}, {xo, tx});  // each thread's loads in one thread loop: no barrier between
        w.gpu_threads({staged}, tx);
        return;
    }
    Var xo(tag + "_xo"), xi(tag + "_xi"), tx(tag + "_tx"), xv(tag + "_xv");
    w.split({staged}, v[0], xo, xi, 256 * width, TailStrategy::GuardWithIf);
    w.split({staged}, xi, tx, xv, width, TailStrategy::GuardWithIf);
    w.reorder({staged}, {xv, xo, tx});
    w.gpu_threads({staged}, tx);
    w.vectorize({staged}, xv, width, TailStrategy::GuardWithIf);
}

// The root's inner dims between the row and the rows (puzzler's 16 slices) unrolled in each
// thread, as the plan lists them, so a `stack`'s select keeps one branch per iteration.
void unroll_row_inner_dims(ScheduleWriter &w, Func root, const std::vector<Var> &v, const RowShape &shape,
                           int inner_dims) {
    for (auto [d, extent] : shape.unrolled_dims)
        if (d > 0 && d < inner_dims && extent > 1)
            w.unroll({root}, v[size_t(d)], int(extent), TailStrategy::GuardWithIf);
}

}  // namespace

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
        splits.push_back(block_level(w, fs[i], points, rows, lanes, i < row_dims.size() ? row_dims[i] : "", root, at,
                                     target, true, 0, 1, lanes));
    }
    fuse_lane_splits(w, splits);
}

// The row template on CUDA with warps (RowShape::warps): one block per row of the root, its threads
// `warps` (thread y) x 32 lanes (thread x), each lane walking the row in steps of the block's
// width, `vector_width` neighbours per access, unrolled so the loads of a step are in flight
// together. The Funcs computed per block reduce with warp shuffles.
void schedule_warp_row_kernel(ScheduleWriter &w, Func root, const RowShape &shape, const std::vector<Func> &at_block,
                              const std::vector<int64_t> &at_block_points, const Target &target) {
    std::vector<Var> v = pure_vars(root);
    const std::string tag = root.name();
    const int vector = std::max(1, shape.vector_width);
    Var xo(tag + "_xo"), xi(tag + "_xi"), t(tag + "_t"), xv(tag + "_xv"), warp(tag + "_warp"), lane(tag + "_lane");
    w.split({root}, v[0], xo, xi, 32 * shape.warps * vector, TailStrategy::GuardWithIf);
    w.split({root}, xi, t, xv, vector, TailStrategy::GuardWithIf);
    w.split({root}, t, warp, lane, 32, TailStrategy::GuardWithIf);
    // Inner dims between the row and the rows (puzzler's slices) loop inside each thread, unrolled.
    const int inner = std::max(1, std::min(shape.inner_dims, int(v.size()) - 1));
    std::vector<VarOrRVar> order{xv, xo};
    for (int d = 1; d < inner; d++) order.push_back(v[size_t(d)]);
    order.push_back(lane);
    order.push_back(warp);
    w.reorder({root}, order);
    if (vector > 1) w.vectorize({root}, xv, vector, TailStrategy::GuardWithIf);
    const int64_t steps = (shape.row_extent + 32 * shape.warps * vector - 1) / (32 * shape.warps * vector);
    if (steps > 1) w.unroll({root}, xo, int(std::min<int64_t>(steps, kLoadsInFlight)), TailStrategy::GuardWithIf);
    unroll_row_inner_dims(w, root, v, shape, inner);
    w.gpu_threads({root}, warp);
    w.gpu_lanes({root}, lane);
    std::vector<VarOrRVar> blocks(v.begin() + inner, v.end());
    blocks_over(w, {root}, blocks, tag);
    const bool mixed = mixed_element_sizes(at_block);
    for (size_t i = 0; i < at_block.size(); i++)
        block_level(w, at_block[i], i < at_block_points.size() ? at_block_points[i] : 1, 1, 32 * shape.warps, "", root,
                    v[size_t(inner)], target, mixed, shape.warps, vector);
}

void schedule_row_kernel(ScheduleWriter &w, Func root, const RowShape &shape, const std::vector<Func> &at_block,
                         const std::vector<int64_t> &at_block_points, const std::vector<std::string> &at_block_row_dims,
                         const std::vector<StagedRow> &staged, const Target &target) {
    w.compute_root(root);
    std::vector<Var> v = pure_vars(root);
    const std::string tag = root.name();
    Var xo(tag + "_xo"), xi(tag + "_xi");
    int rank = int(v.size());
    const int inner_dims = std::max(1, std::min(shape.inner_dims, rank));
    const int vector_width = shape.vector_width;
    if (shape.warps > 0 && target.has_feature(Target::CUDA) && rank > inner_dims) {
        schedule_warp_row_kernel(w, root, shape, at_block, at_block_points, target);
    } else if (is_gpu_target(target)) {
        // `rows` rows per block: 256 / rows threads along each (thread x), the rows as thread y.
        const int rows = rank > inner_dims ? std::max(1, shape.rows_per_block) : 1;
        // 256 threads per block, fewer where a row is short: one `vector_width` access each.
        // (Planned warps without CUDA's shuffles: the same 32 x warps threads, as one row of threads.)
        const int tx_extent = shape.row_threads > 0 ? shape.row_threads : shape.warps > 0 ? 32 * shape.warps : 256 / rows;
        Var tx(tag + "_tx"), ro(tag + "_ro"), ri(tag + "_ri");
        if (vector_width > 1) {
            // Each thread writes `vector_width` neighbours with one wide access. The planner asks
            // for it only when 256 x width divides the row, so nothing is rounded past its end.
            Var xv(tag + "_xv");
            w.split({root}, v[0], xo, xi, tx_extent * vector_width, TailStrategy::RoundUp);
            w.split({root}, xi, tx, xv, vector_width, TailStrategy::RoundUp);
            w.vectorize({root}, xv, vector_width, TailStrategy::RoundUp);
        } else {
            w.split({root}, v[0], xo, tx, tx_extent, TailStrategy::GuardWithIf);
        }
        std::vector<VarOrRVar> blocks;
        for (int d = inner_dims; d < rank; d++) blocks.push_back(v[d]);
        Var at = xo;
        if (rows > 1) {
            // The strips of each row loop around the threads: (tx, ri) one thread block.
            w.split({root}, v[inner_dims], ro, ri, rows, TailStrategy::GuardWithIf);
            w.reorder({root}, {tx, ri, xo, ro});
            w.gpu_threads({root}, tx, ri);
            blocks[0] = ro;
            at = ro;
            blocks_over(w, {root}, blocks, tag);
        } else if (blocks.empty()) {
            w.gpu_threads({root}, tx);
            w.gpu_blocks({root}, xo);  // a small root owned by one block per 256-wide strip
        } else {
            w.gpu_threads({root}, tx);
            at = v[inner_dims];
            blocks_over(w, {root}, blocks, tag);
        }
        unroll_row_inner_dims(w, root, v, shape, inner_dims);
        std::vector<Func> on_chip = at_block;
        for (auto &s : staged) on_chip.push_back(s.func);
        const bool mixed = mixed_element_sizes(on_chip);
        for (auto &s : staged) stage_in_block(w, s.func, root, at, s.row_extent, mixed);
        std::vector<LaneSplit> splits;
        for (size_t i = 0; i < at_block.size(); i++)
            splits.push_back(block_level(w, at_block[i], i < at_block_points.size() ? at_block_points[i] : 1, rows,
                                         tx_extent, rows > 1 && i < at_block_row_dims.size() ? at_block_row_dims[i] : "",
                                         root, at, target, mixed));
        fuse_lane_splits(w, splits);
    } else {
        if (rank > inner_dims) w.parallel({root}, v[rank - 1]);
        w.vectorize({root}, v[0], 8, TailStrategy::GuardWithIf);
        Var at = rank > inner_dims ? v[inner_dims] : Var::outermost();
        for (Func f : at_block) w.compute_at(f, root, at);
    }
}

namespace {

// The stencil root's dims 2 .. inner_dims-1 loop inside each tile, serially within each thread and
// below the tile's producers (computed at xo), which all of them share. `inner` are the tile's
// loops inside those dims (innermost first).
void keep_inside_tile(ScheduleWriter &w, const StageRef &root, const std::vector<Var> &v, int inner_dims,
                      std::vector<VarOrRVar> inner, const Var &xo, const Var &yo) {
    if (inner_dims <= 2) return;
    for (int d = 2; d < inner_dims && d < int(v.size()); d++) inner.push_back(v[d]);
    inner.push_back(xo);
    inner.push_back(yo);
    w.reorder(root, inner);
}

// A producer computed per tile, dealt out to the block's 32 x 8 threads: each warp takes 32
// neighbouring points of one row (a 34-wide row takes two warps, the second mostly idle), the 8
// warps take rows in turn, and every turn is unrolled (up to kTileProducerUnroll), so the loads of
// all its points are in flight together. Rows aligned to warps keep a warp's shared-memory stores
// and global loads within one row: the earlier dealing, the region flattened and every 256th point
// to a thread (5 turns for 34 x 34 points instead of 9), made most warps wrap from one row to the
// next, and ncu counted 31% excess shared-memory wavefronts and 30% excess global sectors in
// Harris. Measured on the H100 (blur / Harris / unsharp): flattened, every turn unrolled (8),
// 30.1 / 73.6 / 84.4 us; aligned rows, every turn unrolled (16), 30.4 / 69.8 / 83.4 us; aligned,
// unrolled by 8 (two rounds), 47.6 / 86.7 / 97.3 us. Earlier (flattened): unrolled by 4, 46 / 96 /
// 97 us; 32x16 tiles (3 turns) by 4, 35 / 91 / 93 us; 32x64 tiles by 8, 40 / 115 / 132 us.
constexpr int kTileProducerUnroll = 16;

void deal_producer_to_threads(ScheduleWriter &w, Func f) {
    std::vector<Var> fv = pure_vars(f);
    if (fv.empty()) {
        w.one_thread_of_block({f});
        return;
    }
    const std::string tag = f.name();
    Var turn(tag + "_turn"), tx(tag + "_tx"), ty(tag + "_ty");
    if (fv.size() >= 2) {
        Var xo(tag + "_xo"), rows(tag + "_rows");
        w.split({f}, fv[0], xo, tx, kStencilThreadsX, TailStrategy::GuardWithIf);
        w.fuse({f}, xo, fv[1], rows);  // each 32-wide piece of each row, in turn
        w.split({f}, rows, turn, ty, kStencilThreadsY, TailStrategy::GuardWithIf);
    } else {
        Var lane(tag + "_lane");
        w.split({f}, fv[0], turn, lane, kStencilThreadsX * kStencilThreadsY, TailStrategy::GuardWithIf);
        w.split({f}, lane, ty, tx, kStencilThreadsX, TailStrategy::RoundUp);
    }
    w.reorder({f}, {turn, tx, ty});
    w.gpu_threads({f}, tx, ty);
    w.unroll({f}, turn, kTileProducerUnroll, TailStrategy::GuardWithIf);
}

}  // namespace

void schedule_stencil_kernel(ScheduleWriter &w, Func root, int inner_dims, bool whole_tiles, bool root_is_output,
                             const std::vector<Func> &at_tile, const Target &target) {
    w.compute_root(root);
    std::vector<Var> v = pure_vars(root);
    const std::string tag = root.name();
    Var xo(tag + "_xo"), yo(tag + "_yo"), xi(tag + "_xi"), yi(tag + "_yi");
    if (is_gpu_target(target)) {
        // A kStencilTileX x kStencilTileY tile per block of 32 x 8 threads: each thread writes a
        // column of 4 neighbouring rows (unrolled: the loads of its rows are in flight together,
        // and rows share the shared-memory loads of their overlapping taps). Producers per tile.
        auto tiles = [&](const StageRef &s, TailStrategy edge) {
            Var yt(tag + "_yt"), yr(tag + "_yr");
            w.tile(s, v[0], v[1], xo, yo, xi, yi, kStencilTileX, kStencilTileY, edge);
            w.split(s, yi, yt, yr, kStencilTileY / kStencilThreadsY, TailStrategy::RoundUp);
            w.reorder(s, {yr, xi, yt, xo, yo});
            keep_inside_tile(w, s, v, inner_dims, {yr, xi, yt}, xo, yo);
            w.gpu_threads(s, xi, yt);
            w.gpu_blocks(s, xo);
            w.gpu_blocks(s, yo);
            w.unroll(s, yr, kStencilTileY / kStencilThreadsY, TailStrategy::GuardWithIf);
            std::vector<VarOrRVar> outer;
            for (size_t d = std::max(2, inner_dims); d < v.size(); d++) outer.push_back(v[d]);
            if (!outer.empty()) blocks_over(w, s, outer, tag + "_o");
        };
        if (!whole_tiles) {
            tiles({root}, TailStrategy::GuardWithIf);
        } else if (!w.guards_every_tail()) {
            tiles({root}, TailStrategy::ShiftInwards);
        } else if (root_is_output && root.outputs() == 1 && root.function().updates().empty()) {
            // Sizes known only at run time: edge tiles shift inwards where the output spans a tile
            // (a specialization), and are guarded where it does not.
            tiles({root, -1, kStencilTileX, kStencilTileY}, TailStrategy::ShiftInwards);
            tiles({root}, TailStrategy::GuardWithIf);
        } else {
            tiles({root}, TailStrategy::GuardWithIf);
        }
        const bool mixed = mixed_element_sizes(at_tile);
        for (Func f : at_tile) {
            w.compute_at(f, root, xo);
            pad_block_allocation(w, f, mixed);
            deal_producer_to_threads(w, f);
        }
    } else {
        w.tile({root}, v[0], v[1], xo, yo, xi, yi, 64, 16, TailStrategy::GuardWithIf);
        keep_inside_tile(w, {root}, v, inner_dims, {xi, yi}, xo, yo);
        w.parallel({root}, yo);
        w.vectorize({root}, xi, 8, TailStrategy::Auto);
        for (Func f : at_tile) {
            w.compute_at(f, root, xo);
            std::vector<Var> fv = pure_vars(f);
            if (!fv.empty()) w.vectorize({f}, fv[0], 8, TailStrategy::GuardWithIf);
        }
    }
}

void schedule_pointwise_kernel(ScheduleWriter &w, Func root, int vector_width, const Target &target) {
    auto fn = root.function();
    if (!is_gpu_target(target) || vector_width <= 1 || !fn.updates().empty()) {
        schedule_as_own_kernel(w, root, target);
        return;
    }
    w.compute_root(root);
    const std::string tag = root.name();
    std::vector<VarOrRVar> pure = stage_pure_vars(fn, 0);
    Var xo(tag + "_xo"), xv(tag + "_xv"), bx(tag + "_bx"), tx(tag + "_tx");
    // The planner asks for a width only when it divides the innermost extent: RoundUp rounds nothing.
    w.split({root}, pure[0], xo, xv, vector_width, TailStrategy::RoundUp);
    pure[0] = xo;
    pure = fold_into_three(w, {root}, pure, tag);
    w.gpu_tile({root}, pure[0], bx, tx, 256, TailStrategy::GuardWithIf);
    for (size_t i = 1; i < pure.size(); i++) w.gpu_blocks({root}, pure[i]);
    w.vectorize({root}, xv, vector_width, TailStrategy::RoundUp);
}

void schedule_block_reduction(ScheduleWriter &w, Func f, const Target &target) {
    auto fn = f.function();
    if (!is_gpu_target(target) || fn.updates().size() != 1 || fn.update(0).schedule().rvars().size() != 1 ||
        fn.args().empty()) {
        schedule_as_own_kernel(w, f, target);
        return;
    }
    w.compute_root(f);
    const std::string tag = f.name();
    // Both stages: one block per result.
    std::vector<VarOrRVar> init = fold_into_three(w, {f}, stage_pure_vars(fn, 0), tag + "_s0");
    for (auto &d : init) w.gpu_blocks({f}, d);
    // The reduction across the block's threads, as block_level does for a fused one. rfactor
    // first: the partials would otherwise inherit the update's block loops.
    RVar r(fn.update(0).schedule().rvars()[0].var), ro(tag + "_ro"), ri(tag + "_ri");
    Var lane(tag + "_lane");
    w.split({f, 0}, r, ro, ri, 256, TailStrategy::GuardWithIf);
    Func partial = w.rfactor({f, 0}, ri, lane);
    std::vector<VarOrRVar> upd = fold_into_three(w, {f, 0}, stage_pure_vars(fn, 1), tag + "_s1");
    for (auto &d : upd) w.gpu_blocks({f, 0}, d);
    w.compute_at(partial, f, upd.front());  // alone in its block: nothing to overlap
    w.gpu_threads({partial}, lane);
    w.gpu_threads({partial, 0}, lane);
}

void schedule_horizontal_1d(ScheduleWriter &w, const std::vector<Func> &roots, const Target &target,
                            const std::vector<bool> &adds_partials) {
    Var bx("h_bx"), tx("h_tx");
    for (size_t i = 0; i < roots.size(); i++) {
        Func f = roots[i];
        Var x(f.function().args()[0]);
        w.compute_root(f);
        // A split-K root: its partials added by kPartialLanes threads per result, or else unrolled
        // in one thread per result.
        Func spread;
        if (i < adds_partials.size() && adds_partials[i] && is_gpu_target(target)) {
            spread = spread_partials_sum(w, f);
            if (!spread.defined()) unroll_partials_sum(w, f);
        }
        // Stage by stage (a reduction's init, then its update): each tiled over x alike, and fused
        // with the first root's same stage.
        for (int stage = -1; stage < int(f.function().updates().size()); stage++) {
            StageRef s{f, stage};
            if (is_gpu_target(target)) {
                const int tile = stage == 0 && spread.defined() ? 256 / kPartialLanes : 256;
                w.gpu_tile(s, x, bx, tx, tile, TailStrategy::GuardWithIf);
            } else {
                w.split(s, x, bx, tx, 1024, TailStrategy::GuardWithIf);
                w.parallel(s, bx);
                // Pure roots only, as before stage-by-stage fusion: a reduction root vectorized here
                // wrote past its output on the host (random seed 451's batch crashed).
                if (f.function().updates().empty()) w.vectorize(s, tx, 8, TailStrategy::Auto);
            }
            if (i > 0) w.compute_with(s, {roots[0], stage}, bx);
        }
        if (spread.defined()) {
            // Per block: a thread per (result, lane), each adding its share with its loads unrolled.
            std::vector<Var> pv = pure_vars(spread);  // the root's x, then the lane
            w.compute_at(spread, f, bx);
            w.gpu_threads({spread}, pv[0], pv[1]);
            const auto &rvars = spread.function().update(0).schedule().rvars();
            std::vector<VarOrRVar> order;
            for (auto &rv : rvars) order.push_back(RVar(rv.var));
            order.push_back(pv[0]);
            order.push_back(pv[1]);
            w.reorder({spread, 0}, order);
            w.gpu_threads({spread, 0}, pv[0], pv[1]);
            // Innermost first, while the loads in flight stay within kPartialsInFlight.
            int64_t in_flight = 1;
            for (auto &rv : rvars) {
                auto e = Internal::as_const_int(Internal::simplify(rv.extent));
                if (!e || *e <= 1 || in_flight * *e > kPartialsInFlight) break;
                w.unroll({spread, 0}, RVar(rv.var), int(*e), TailStrategy::GuardWithIf);
                in_flight *= *e;
            }
        }
    }
}

}  // namespace solder
