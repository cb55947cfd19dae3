#include "schedules/generic/generic_schedule.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "autosched/model/generic_reason.h"
#include "autosched/model/pipeline_funcs.h"
#include "autosched/model/run_time_region.h"
#include "schedules/writer/reduction_walk.h"

namespace solder {
using namespace Halide;

namespace {

constexpr int kTileX = kGenericTileX, kTileY = kGenericTileY, kThreads1D = kGenericThreads1D;
constexpr int kHostChunk = 1024, kHostVector = 8;
constexpr int kMergeChunks = kScatterMergeChunks;

void pure_loops(ScheduleWriter &w, const StageRef &s, std::vector<VarOrRVar> pure, const Target &target,
                const std::string &tag, int threads_1d, int serial = 0, bool unsplit = false) {
    if (unsplit) {
        // An update whose predicate loads at its pure vars (predicate_loads_at_pure_vars). Halide
        // lifts such a predicate into its RVar's extent where the RVar loop is innermost, and bounds
        // the load over the split's guarded tail: each thread (or task) takes two neighbouring
        // points of a 1-D var inside its walk, so the predicate stays a test at each point. More
        // dims: none that the predicate loads at split, a block (a task) per point of them; an
        // innermost var it does not load at (an embedding bag's channels, `bag(d, b)` with
        // `r < off(b + 1) - off(b)`) over the block's threads, each walking the RDom.
        const auto rvars = s.func.function().update(s.update).schedule().rvars();
        if (pure.size() == 1 &&
            !predicate_loads_func_at_pure_vars(s.func.function(), s.func.function().update(s.update))) {
            Var o(tag + "_po"), t(tag + "_pt"), pair(tag + "_pair");
            const int per = is_gpu_target(target) ? (threads_1d > 0 ? threads_1d : kThreads1D) : kHostChunk / 2;
            w.split(s, pure[0], o, t, 2 * per, TailStrategy::GuardWithIf);
            w.split(s, t, t, pair, 2, TailStrategy::GuardWithIf);
            std::vector<VarOrRVar> order{pair};
            for (auto &rv : rvars) order.push_back(RVar(rv.var));
            order.push_back(t);
            order.push_back(o);
            w.reorder(s, order);
            w.unroll(s, pair, 2, TailStrategy::GuardWithIf);
            if (is_gpu_target(target)) {
                w.gpu_blocks(s, o);
                w.gpu_threads(s, t);
            } else {
                w.parallel(s, o);
            }
            return;
        }
        if (is_gpu_target(target) && innermost_over_threads_in_walk(s.func.function(), s.update)) {
            Var o(tag + "_po"), t(tag + "_pt");
            w.split(s, pure[0], o, t, kThreads1D, TailStrategy::GuardWithIf);
            std::vector<VarOrRVar> order;
            for (auto &rv : rvars) order.push_back(RVar(rv.var));
            order.push_back(t);
            order.push_back(o);
            order.insert(order.end(), pure.begin() + 1, pure.end());
            w.reorder(s, order);
            w.gpu_threads(s, t);
            pure[0] = o;
        }
        pure = fold_into_three(w, s, pure, tag);
        if (is_gpu_target(target))
            for (const VarOrRVar &v : pure) w.gpu_blocks(s, v);
        else
            w.parallel(s, pure.back());
        return;
    }
    // Dims beyond the grid's three looped in each thread, or the grid as the writer maps it
    // (schedules/writer/schedule_writer.h): the tile's threads first.
    if (is_gpu_target(target) &&
        ((pure.size() >= 4 && serial > 0) || (pure.size() >= 2 && grid_changes(w, pure.size(), 2)))) {
        gpu_tile_over_blocks(w, s, pure, kTileX, kTileY, tag, pure.size() >= 4 ? serial : 0);
        return;
    }
    pure = fold_into_three(w, s, pure, tag);
    if (is_gpu_target(target)) {
        if (pure.size() >= 2) {
            Var bx(tag + "_bx"), by(tag + "_by"), tx(tag + "_tx"), ty(tag + "_ty");
            w.gpu_tile(s, pure[0], pure[1], bx, by, tx, ty, kTileX, kTileY, TailStrategy::GuardWithIf);
            if (pure.size() == 3) w.gpu_blocks(s, pure[2]);
        } else {
            Var bx(tag + "_bx"), tx(tag + "_tx");
            w.gpu_tile(s, pure[0], bx, tx, threads_1d > 0 ? threads_1d : kThreads1D, TailStrategy::GuardWithIf);
        }
        return;
    }
    if (pure.size() >= 2) {
        w.parallel(s, pure.back());
        if (s.update < 0) w.vectorize(s, pure[0], kHostVector, TailStrategy::GuardWithIf);
        return;
    }
    Var xo(tag + "_xo"), xi(tag + "_xi");
    w.split(s, pure[0], xo, xi, kHostChunk, TailStrategy::GuardWithIf);
    w.parallel(s, xo);
    if (s.update < 0) w.vectorize(s, xi, kHostVector, TailStrategy::GuardWithIf);
}

// The bin dims `dims` of a stage fused into one (innermost first), for a 1-D layout of threads.
VarOrRVar one_bin_dim(ScheduleWriter &w, const StageRef &s, const std::vector<VarOrRVar> &dims,
                      const std::string &tag) {
    VarOrRVar all = dims[0];
    for (size_t i = 1; i < dims.size(); i++) {
        Var next(tag + "_f" + std::to_string(i));
        w.fuse(s, all, dims[i], next);
        all = next;
    }
    return all;
}

// Every RVar of stage `s` of `fn` fused into one, innermost first (named `prefix`1, `prefix`2,
// ...): a walk over all the points of its RDom. Returns it. With `innermost` (an RVar's index), that
// RVar is moved innermost first, the others keeping their order.
VarOrRVar fuse_rvars(ScheduleWriter &w, const StageRef &s, const Internal::Function &fn, const std::string &prefix,
                     int innermost = -1) {
    std::vector<VarOrRVar> order;
    for (auto &rv : fn.update(s.update).schedule().rvars()) order.push_back(RVar(rv.var));
    if (innermost > 0) {
        std::rotate(order.begin(), order.begin() + innermost, order.begin() + innermost + 1);
        w.reorder(s, order);
    }
    VarOrRVar all = order[0];
    for (size_t i = 1; i < order.size(); i++) {
        RVar next(prefix + std::to_string(i));
        w.fuse(s, all, order[i], next);
        all = next;
    }
    return all;
}

// The index of the RVar of update `u` that some arg of its store is, as it is, in the innermost
// such arg (a Hough transform's angle, `votes(r.z, bin(r.x, r.y, r.z)) += 1`), or -1 where none is.
// Neighbouring points along it add into neighbouring bins.
int store_rvar(const Internal::Function &fn, int u) {
    const Internal::Definition &d = fn.update(u);
    const auto &rvars = d.schedule().rvars();
    for (const Expr &a : d.args()) {
        const auto *v = a.as<Internal::Variable>();
        if (!v) continue;
        for (size_t i = 0; i < rvars.size(); i++)
            if (rvars[i].var == v->name) return int(i);
    }
    return -1;
}

// The pure stage of a chunks' bins Func (its bin dims, then the chunk): the bins fused into one dim
// over kThreads1D threads, outside them the chunk. Returns the chunk's loop.
VarOrRVar bins_over_threads(ScheduleWriter &w, const StageRef &s, const std::string &tag) {
    std::vector<VarOrRVar> dims = stage_pure_vars(s.func.function(), 0);
    const VarOrRVar chunk = dims.back();
    dims.pop_back();
    Var bo(tag + "_bo"), bt(tag + "_bt");
    w.split(s, one_bin_dim(w, s, dims, tag), bo, bt, kThreads1D, TailStrategy::GuardWithIf);
    w.reorder(s, {bt, bo, chunk});
    w.gpu_threads(s, bt);
    return chunk;
}

// Update `s` walked in order by one thread (a cumulative table): its innermost RVar unrolled, so
// the loads of several steps issue ahead of the arithmetic that waits on the previous step
// (hist_equalize's 256-bin table on the H100: 18.3 -> 13.4 us).
void unroll_single_thread_walk(ScheduleWriter &w, const StageRef &s, const Internal::Function &fn) {
    const auto &rv = fn.update(s.update).schedule().rvars();
    if (!rv.empty()) w.unroll(s, RVar(rv[0].var), kScanUnroll, TailStrategy::GuardWithIf);
}

// GenericParams::stage_step_threads: one block (a split of the stage's outermost dim, of one
// iteration); the innermost RVar over `threads` threads; the outer RVars walked in the block, the
// innermost of them two steps at a time, unrolled. Halide puts a barrier after each thread loop
// that a later one in the same block reads from, and at the end of each iteration of a loop that
// holds such barriers: so between every two steps. (One thread loop per step, not unrolled, would
// be fused into one loop around the whole walk, each thread walking its own points with no
// barrier.) Proved by autosched::innermost_rvar_parallel_per_step, the outer RVars at one step.
void steps_in_one_block(ScheduleWriter &w, const StageRef &s, const Internal::Function &fn, const std::string &tag,
                        int threads) {
    const auto rvars = fn.update(s.update).schedule().rvars();
    w.allow_race_conditions(s);
    RVar lanes_o(tag + "_so"), lanes(tag + "_st"), pair(tag + "_sp"), step(tag + "_ss");
    w.split(s, RVar(rvars[0].var), lanes_o, lanes, threads, TailStrategy::GuardWithIf);
    w.split(s, RVar(rvars[1].var), pair, step, 2, TailStrategy::GuardWithIf);
    std::vector<VarOrRVar> order{lanes, lanes_o, step, pair};
    for (size_t i = 2; i < rvars.size(); i++) order.push_back(RVar(rvars[i].var));
    w.reorder(s, order);
    w.unroll(s, step);
    Var block(tag + "_sblock");
    w.split(s, Var::outermost(), Var::outermost(), block, 1, TailStrategy::GuardWithIf);
    w.gpu_blocks(s, block);
    w.gpu_threads(s, lanes);
}

// GenericParams::stage_walk_threads: the innermost RVar outermost, over blocks of `threads`
// threads, each thread walking the outer RVars in order (unrolled as a scan's walk is). Proved by
// autosched::innermost_rvar_independent.
void walks_over_threads(ScheduleWriter &w, const StageRef &s, const Internal::Function &fn, const std::string &tag,
                        int threads) {
    const auto rvars = fn.update(s.update).schedule().rvars();
    w.allow_race_conditions(s);
    std::vector<VarOrRVar> order;
    for (size_t i = 1; i < rvars.size(); i++) order.push_back(RVar(rvars[i].var));
    order.push_back(RVar(rvars[0].var));
    w.reorder(s, order);
    RVar blocks(tag + "_wb"), lanes(tag + "_wt");
    w.split(s, RVar(rvars[0].var), blocks, lanes, threads, TailStrategy::GuardWithIf);
    w.gpu_blocks(s, blocks);
    w.gpu_threads(s, lanes);
    w.unroll(s, RVar(rvars[1].var), kScanUnroll, TailStrategy::GuardWithIf);
}

// A scatter over rows (a histogram of an image) whose bins fit in shared memory
// (GenericParams::shared_bins): each chunk of kScatterRowsPerChunk rows (kScatterPointsPerChunk
// points of a 1-D RDom) accumulates into bins of its own (rfactor), one block per chunk, so its
// atomics meet only that block's; then each bin adds up its chunks. All of 8M pixels' increments
// on the same 256 bins took the H100 2.3 ms.
void scatter_in_shared_chunks(ScheduleWriter &w, const StageRef &s, const Internal::Function &fn,
                              const std::string &tag) {
    const auto rvars = fn.update(s.update).schedule().rvars();
    RVar rows(rvars.back().var), chunk(tag + "_chunk"), row(tag + "_row");
    w.split(s, rows, chunk, row, scatter_chunk(rvars.size()), TailStrategy::GuardWithIf);
    Var u(tag + "_u");
    Func intm = w.rfactor(s, chunk, u);
    at_least_one_slice(w, intm, u.name(), rvars.back().extent, scatter_chunk(rvars.size()));
    const std::string itag = tag + "_part";
    // The chunk's walk over its rows: 256 lanes, each point's increment atomic.
    auto walk_chunk = [&](const StageRef &is, int lanes) {
        w.atomic(is);
        const VarOrRVar all = fuse_rvars(w, is, intm.function(), itag + "_r");
        RVar walk(itag + "_walk"), lane(itag + "_lane");
        w.split(is, all, walk, lane, lanes, TailStrategy::GuardWithIf);
        w.reorder(is, {lane, walk, u});
        return lane;
    };
    // Each chunk's bins in its block's shared memory (shared atomics), zeroed and filled
    // there, then written out once by a copy that the Func's sum over chunks reads.
    Func copy = w.in(intm, {Func(fn)});
    w.compute_root(copy);
    const VarOrRVar cu = bins_over_threads(w, {copy}, tag + "_copy");
    w.gpu_blocks({copy}, cu);
    w.compute_at(intm, copy, cu);
    bins_over_threads(w, {intm}, itag + "_zero");
    w.gpu_threads({intm, 0}, walk_chunk({intm, 0}, kSharedBinsLanes));
    // The Func itself now adds its chunks' bins: a block per kMergeChunks chunks, a thread per
    // bin, each adding its chunks' counts and then, atomically, the sum to the bin. (One block
    // whose threads each walked all 270 chunks took hist_equalize's bins 20 us on the H100;
    // that walk unrolled by 8, 47.9.)
    // (Its merge writes each of the Func's pure vars as it is. In a specialization the Func's own
    // update, which fn.update shows, is still the scatter: the merge replaced only the branch's.)
    std::vector<VarOrRVar> bins = stage_pure_vars(fn, 0);
    Var mb(tag + "_merge_bo"), mt(tag + "_merge_bt");
    RVar mo(tag + "_merge_co"), mi(tag + "_merge_ci");
    w.split(s, one_bin_dim(w, s, bins, tag + "_merge"), mb, mt, kThreads1D, TailStrategy::GuardWithIf);
    w.split(s, chunk, mo, mi, kMergeChunks, TailStrategy::GuardWithIf);
    w.reorder(s, {mi, mt, mb, mo});
    w.atomic(s);
    w.gpu_blocks(s, mo);
    w.gpu_threads(s, mt);
}

// The Funcs (an input's too) an atomic scatter's stored index loads, each read through a wrapper
// computed at the update's point (its thread). Halide emits an atomic add only where it matches
// the stored value as a load of the store's own index plus a delta; a bin such loads give shares
// them with the value after common subexpressions are taken out, and each increment became a
// compare-and-swap loop (a 2-D histogram of two 8-bit images; a float sum by a bin computed from
// the value's own input; a bin computed from the RDom's points alone, which
// autosched/computed_bins.h moves into a Func). A load of the wrapper's one point on both sides matches
// (docs/halide-21-notes.md). Only where the update is the Func's last stage and no specialization
// of it has other loops.
void bin_loads_per_point(ScheduleWriter &w, const StageRef &s, const Internal::Function &fn, const RVar &point) {
    if (s.update + 1 != int(fn.updates().size()) || has_specializations(fn)) return;
    const std::vector<std::string> loaded = funcs_in_stored_index(fn, s.update);
    if (loaded.empty()) return;
    // (The value's loads outside its read of the Func's own bin.)
    struct ValueLoads : Internal::IRVisitor {
        std::string self;
        std::set<std::string> names;
        using Internal::IRVisitor::visit;
        void visit(const Internal::Call *c) override {
            if (c->call_type == Internal::Call::Halide && c->name == self) return;
            if (c->call_type == Internal::Call::Halide) names.insert(c->name);
            Internal::IRVisitor::visit(c);
        }
    } value_loads;
    value_loads.self = fn.name();
    for (const Expr &v : fn.update(s.update).values()) v.accept(&value_loads);
    // The loaded Funcs a wrapper can read (no updates, not extern). The shapes seen to lose the
    // atomic add: a bin loaded from two Funcs, a bin whose Func the value loads too, or a bin Func
    // that loads nothing (arithmetic over the RDom's points: autosched/computed_bins.h). A bin of
    // one load the value does not share keeps it as it is.
    const std::map<std::string, Internal::Function> env = Internal::find_transitive_calls(fn);
    std::vector<Internal::Function> plain;
    bool shared = loaded.size() >= 2;
    for (const std::string &name : loaded) {
        shared = shared || value_loads.names.count(name);
        auto it = env.find(name);
        if (it == env.end() || !it->second.updates().empty() || it->second.has_extern_definition()) continue;
        plain.push_back(it->second);
        const auto &values = it->second.values();
        shared = shared || std::none_of(values.begin(), values.end(), reads_func_or_buffer);
    }
    if (!shared) return;
    for (const Internal::Function &f : plain) {
        Func wrapper = w.in(Func(f), {Func(fn)});
        w.compute_at(wrapper, Func(fn), point);
    }
}

// Where `fn`'s bins fit kSharedBinsBytes when the pipeline runs (autosched/model/run_time_region.h):
// a constant where their region is one, a condition over what the pipeline is given, or undefined
// where their region cannot be told (the planner then chunked them only where it cannot grow).
Expr bins_fit(const ScheduleWriter &w, const Internal::Function &fn) {
    std::vector<Internal::Function> outs;
    for (const Func &o : w.outputs()) outs.push_back(o.function());
    return autosched::region_fits(outs, fn.name(), kSharedBinsBytes);
}

// An update that writes no pure var as it is: its RDom's points at once, atomically where legal, or
// with no atomics where each point writes a point of its own (distinct_points_update); else
// its walks as GenericParams::stage_walk_threads or stage_step_threads say, or one thread.
void reduction_loops(ScheduleWriter &w, const StageRef &s, const Internal::Function &fn, const Target &target,
                     const std::string &tag, bool shared_bins, int walk_threads, int step_threads, int spread) {
    if (!is_gpu_target(target)) {  // serial on the host
        w.unscheduled(s);
        return;
    }
    if (!autosched::all_points_at_once(fn, s.update, target)) {
        if (walk_threads > 0) {
            walks_over_threads(w, s, fn, tag, walk_threads);
            return;
        }
        if (step_threads > 0) {
            steps_in_one_block(w, s, fn, tag, step_threads);
            return;
        }
        unroll_single_thread_walk(w, s, fn);
        w.gpu_single_thread(s);
        return;
    }
    const auto rvars = fn.update(s.update).schedule().rvars();
    bool branched = false;  // (the chunks in a specialization, the increments below elsewhere)
    // (Chunks whose count a scalar parameter gives in a form the source cannot name would be left
    // unbounded, and none at run time is an allocation Halide's GPU runtimes refuse: those scatter
    // unchunked.)
    if (shared_bins && autosched::chunked_scatter(fn, s.update) && slice_count_writable(rvars.back().extent)) {
        // Where the bins fit only at some sizes, the chunks in the branch where they do (its
        // condition over what the pipeline is given), the direct increments below elsewhere.
        const Expr fits = bins_fit(w, fn);
        if (!fits.defined() || is_const_one(fits)) {
            scatter_in_shared_chunks(w, s, fn, tag);
            return;
        }
        if (!is_const_zero(fits)) {
            try {
                scatter_in_shared_chunks(w, w.branch(s, fits, "bins_fit"), fn, tag);
                branched = true;
            } catch (const std::invalid_argument &) {
                // (A condition the schedule's source cannot write: the direct increments alone.)
            }
        }
    }
    // (Points that each write their own: no atomics, any order.)
    const bool atomic = autosched::atomic_update(fn, s.update, target);
    if (atomic)
        w.atomic(s);
    else
        w.allow_race_conditions(s);
    // Every point of the RDom a thread of one launch (its RVars fused: not a launch per row). An
    // atomic scatter whose store takes an RVar as it is has that RVar innermost: a warp's adds then
    // go to as many bins, not, as along a row of pixels, mostly to one (a Hough transform's votes
    // over 1024 x 1024 pixels and 180 angles, the pixels innermost: 445 ms on the H200, each add a
    // compare-and-swap loop contending with the warp's others).
    const VarOrRVar all = fuse_rvars(w, s, fn, tag + "_rf", atomic ? store_rvar(fn, s.update) : -1);
    RVar ro(tag + "_ro"), ri(tag + "_ri");
    w.split(s, all, ro, ri, kThreads1D, TailStrategy::GuardWithIf);
    // Pure vars it writes as they are (GenericParams::stage_over_rdom): fused, a grid dim outside.
    const std::vector<VarOrRVar> pure = stage_pure_vars(fn, s.update + 1);
    if (atomic && pure.empty() && spread > 1) {
        // Blocks `spread` apart along grid x (GenericParams::stage_spread_blocks).
        RVar far(tag + "_far"), near(tag + "_near");
        w.split(s, ro, far, near, spread, TailStrategy::GuardWithIf);
        w.reorder(s, {ri, far, near});
        w.gpu_blocks(s, far);
        w.gpu_blocks(s, near);
        w.gpu_threads(s, ri);
    } else {
        w.gpu_blocks(s, ro);
        if (!pure.empty()) w.gpu_blocks(s, one_bin_dim(w, s, pure, tag + "_pure"));
        w.gpu_threads(s, ri);
    }
    // (Not where an RVar stored as it is went innermost: a Hough transform's votes, whose wrapper
    // Halide then sized over that RVar's 180 angles per thread, a heap allocation in global memory
    // for every thread that ran the H100 out of memory.)
    if (atomic && !branched && store_rvar(fn, s.update) < 0) bin_loads_per_point(w, s, fn, ri);
}

// A row scatter (GenericParams::stage_row_lanes): the Func's innermost dim, which the update
// writes as it is (`pure[0]`), over `lanes` threads; a block per point of the RDom (its RVars
// fused into grid x), the other pure vars' points grid y; each add atomic.
void scatter_rows(ScheduleWriter &w, const StageRef &s, const Internal::Function &fn, std::vector<VarOrRVar> pure,
                  const std::string &tag, int lanes) {
    w.atomic(s);
    const VarOrRVar all = fuse_rvars(w, s, fn, tag + "_rf");
    Var lo(tag + "_lo"), lt(tag + "_lt");
    w.split(s, pure[0], lo, lt, lanes, TailStrategy::GuardWithIf);
    pure[0] = lo;
    std::vector<VarOrRVar> order{lt, all};
    order.insert(order.end(), pure.begin(), pure.end());
    w.reorder(s, order);
    w.gpu_threads(s, lt);
    w.gpu_blocks(s, all);
    w.gpu_blocks(s, one_bin_dim(w, s, pure, tag + "_pure"));
}

}  // namespace

bool innermost_over_threads_in_walk(const Internal::Function &fn, int update) {
    const std::vector<VarOrRVar> pure = stage_pure_vars(fn, update + 1);
    return pure.size() >= 2 && !pure_vars_predicate_loads_at(fn, fn.update(update)).count(pure[0].name());
}

void schedule_cell_scatter(ScheduleWriter &w, Func f, int lanes) {
    const std::string tag = f.name() + "_cell";
    const Internal::Function fn = f.function();
    Func copy = w.in(f, {});
    w.compute_root(copy);
    // The copy's dims: the bins (data-dependent in the update) over the threads, the cells (pure
    // vars the update writes as they are) fused into grid x.
    std::set<std::string> cell_names;
    for (const VarOrRVar &v : stage_pure_vars(fn, 1)) cell_names.insert(v.name());
    std::vector<VarOrRVar> bins, cells;
    for (const Var &v : copy.args()) (cell_names.count(v.name()) ? cells : bins).push_back(v);
    const VarOrRVar cell = one_bin_dim(w, {copy}, cells, tag + "_c");
    Var bo(tag + "_bo"), bt(tag + "_bt");
    w.split({copy}, one_bin_dim(w, {copy}, bins, tag + "_b"), bo, bt, lanes, TailStrategy::GuardWithIf);
    w.reorder({copy}, {bt, bo, cell});
    w.gpu_threads({copy}, bt);
    w.gpu_blocks({copy}, cell);
    w.compute_at(f, copy, cell);
    // The Func's bins zeroed over the threads (its cell dims one point each here).
    std::vector<VarOrRVar> own_bins;
    for (const VarOrRVar &v : stage_pure_vars(fn, 0))
        if (!cell_names.count(v.name())) own_bins.push_back(v);
    Var zo(tag + "_zo"), zt(tag + "_zt");
    w.split({f}, one_bin_dim(w, {f}, own_bins, tag + "_z"), zo, zt, lanes, TailStrategy::GuardWithIf);
    w.gpu_threads({f}, zt);
    // Its update over the RDom's points, each increment an atomic one in shared memory.
    const StageRef s{f, 0};
    w.atomic(s);
    RVar ro(tag + "_ro"), ri(tag + "_ri");
    w.split(s, fuse_rvars(w, s, fn, tag + "_r"), ro, ri, lanes, TailStrategy::GuardWithIf);
    w.gpu_threads(s, ri);
}

void schedule_cell_threads(ScheduleWriter &w, Func f, int threads) {
    const std::string tag = f.name() + "_cellt";
    const Internal::Function fn = f.function();
    Func copy = w.in(f, {});
    w.compute_root(copy);
    // The copy: the innermost cell dim split over the threads, the bins (data-dependent in the
    // update) looped by each thread, the other cells and the thread counts' tiles block dims.
    const std::vector<VarOrRVar> cells = stage_pure_vars(fn, 1);
    std::set<std::string> cell_names;
    for (const VarOrRVar &v : cells) cell_names.insert(v.name());
    const Var cx(cells[0].name());
    Var cxo(tag + "_xo"), cxi(tag + "_xi");
    w.split({copy}, cx, cxo, cxi, threads, TailStrategy::GuardWithIf);
    std::vector<VarOrRVar> order{cxi}, blocks{cxo};
    for (const Var &v : copy.args())
        if (!cell_names.count(v.name())) order.push_back(v);
    for (size_t i = 1; i < cells.size(); i++) blocks.push_back(cells[i]);
    for (const VarOrRVar &b : blocks) order.push_back(b);
    w.reorder({copy}, order);
    w.gpu_threads({copy}, cxi);
    const VarOrRVar block = gpu_blocks_over(w, {copy}, blocks, tag + "_b", 1);
    w.compute_at(f, copy, block);
    // The Func's pure stage and its update each a thread per cell (the innermost cell dim, one
    // point of the others here), the thread's loops over its bins and its RDom inside.
    std::vector<VarOrRVar> pure_order;
    for (const Var &v : f.args())
        if (v.name() != cx.name()) pure_order.push_back(v);
    pure_order.push_back(cx);
    w.reorder({f}, pure_order);
    w.gpu_threads({f}, cx);
    const StageRef s{f, 0};
    std::vector<VarOrRVar> walk_order;
    for (auto &rv : fn.update(0).schedule().rvars()) walk_order.push_back(RVar(rv.var));
    for (size_t i = 1; i < cells.size(); i++) walk_order.push_back(cells[i]);
    walk_order.push_back(cx);
    w.reorder(s, walk_order);
    w.gpu_threads(s, cx);
    unroll_single_thread_walk(w, s, fn);
}

void schedule_one_block(ScheduleWriter &w, Func f) {
    const std::string tag = f.name() + "_one";
    Func copy = w.in(f, {});
    w.compute_root(copy);
    Var block(tag + "_block"), co(tag + "_co"), ct(tag + "_ct");
    w.split({copy}, stage_pure_vars(copy.function(), 0)[0], co, ct, kThreads1D, TailStrategy::GuardWithIf);
    w.split({copy}, Var::outermost(), Var::outermost(), block, 1, TailStrategy::GuardWithIf);
    w.gpu_blocks({copy}, block);
    w.gpu_threads({copy}, ct);
    w.compute_at(f, copy, block);
    const Internal::Function fn = f.function();
    Var fo(tag + "_fo"), ft(tag + "_ft");
    w.split({f}, stage_pure_vars(fn, 0)[0], fo, ft, kThreads1D, TailStrategy::GuardWithIf);
    w.gpu_threads({f}, ft);
    for (int u = 0; u < int(fn.updates().size()); u++) {
        unroll_single_thread_walk(w, {f, u}, fn);
        w.one_thread_of_block({f, u});
    }
}

// GenericParams::stage_rvar_threads: the update's innermost RVar and its innermost pure var over
// kTileX x kTileY threads, the other pure vars block dims, the outer RVars loops around the launch.
void rvar_over_threads(ScheduleWriter &w, const StageRef &s, const Internal::Function &fn,
                       const std::vector<VarOrRVar> &pure, const std::string &tag) {
    const auto rvars = fn.update(s.update).schedule().rvars();
    // (Proved by autosched::innermost_rvar_parallel_per_step, the outer RVars at one step.)
    w.allow_race_conditions(s);
    Var bx(tag + "_bx"), tx(tag + "_tx");
    RVar by(tag + "_by"), ty(tag + "_ty");
    w.split(s, pure[0], bx, tx, kTileX, TailStrategy::GuardWithIf);
    w.split(s, RVar(rvars[0].var), by, ty, kTileY, TailStrategy::GuardWithIf);
    std::vector<VarOrRVar> order{tx, ty, bx, by}, blocks{bx, by};
    for (size_t i = 1; i < pure.size(); i++) order.push_back(pure[i]), blocks.push_back(pure[i]);
    for (size_t i = 1; i < rvars.size(); i++) order.push_back(RVar(rvars[i].var));
    w.reorder(s, order);
    w.gpu_threads(s, tx, ty);
    gpu_blocks_over(w, s, blocks, tag, 2);
}

void schedule_generic_kernel(ScheduleWriter &w, Func f, const Target &target, const autosched::GenericParams &p) {
    w.compute_root(f);
    const Internal::Function fn = f.function();
    if (fn.has_extern_definition()) return;
    const std::string name = f.name();
    auto at = [](const auto &v, int stage) {
        using T = typename std::decay_t<decltype(v)>::value_type;
        return size_t(stage) < v.size() ? T(v[size_t(stage)]) : T{};
    };
    for (int stage = 0; stage <= int(fn.updates().size()); stage++) {
        const StageRef s{f, stage - 1};
        const std::string tag = name + "_g" + std::to_string(stage);
        std::vector<VarOrRVar> pure = stage_pure_vars(fn, stage);
        // (Over its RDom only where the target's atomics take it; the plan asked for no other.)
        const bool over = stage > 0 && at(p.stage_over_rdom, stage) && autosched::atomic_update(fn, stage - 1, target);
        if (!pure.empty() && !over && is_gpu_target(target) && at(p.stage_rvar_threads, stage)) {
            rvar_over_threads(w, s, fn, pure, tag);
        } else if (!pure.empty() && !over) {
            pure_loops(w, s, pure, target, tag, at(p.stage_threads, stage), at(p.stage_serial_outer, stage),
                       stage > 0 && predicate_loads_at_pure_vars(fn, fn.update(stage - 1)));
            // A scan's RVars walk serially in each thread: unrolled, the loads of several steps
            // issue ahead of the arithmetic that waits on the previous step.
            if (stage > 0 && is_gpu_target(target) && at(p.stage_unroll, stage) != 1)
                for (auto &rv : fn.update(stage - 1).schedule().rvars())
                    w.unroll(s, RVar(rv.var), at(p.stage_unroll, stage) > 0 ? at(p.stage_unroll, stage) : kScanUnroll,
                             TailStrategy::GuardWithIf);
        } else if (stage > 0 && over && at(p.stage_row_lanes, stage) > 0) {
            scatter_rows(w, s, fn, pure, tag, at(p.stage_row_lanes, stage));
        } else if (stage > 0) {
            reduction_loops(w, s, fn, target, tag, p.shared_bins, at(p.stage_walk_threads, stage),
                            at(p.stage_step_threads, stage), at(p.stage_spread_blocks, stage));
        } else if (is_gpu_target(target)) {
            w.gpu_single_thread(s);  // a scalar Func's pure definition
        }
    }
}

void schedule_point_scan_tiles(ScheduleWriter &w, Func f, int rows) {
    const Internal::Function fn = f.function();
    const std::vector<int> scan = autosched::point_scan_dims(fn);
    auto is_scan = [&](size_t d) { return std::find(scan.begin(), scan.end(), int(d)) != scan.end(); };
    const std::string tag = f.name() + "_copy";
    Func copy = w.in(f, {});
    w.compute_root(copy);
    const std::vector<Var> cv = pure_vars(copy);
    Var bx(tag + "_bx"), by(tag + "_by"), tx(tag + "_tx"), ty(tag + "_ty");
    w.tile({copy}, cv[0], cv[1], bx, by, tx, ty, kTileX, rows, TailStrategy::GuardWithIf);
    // Innermost first: the scan dims (in each thread), the threads, the tiles, the other dims.
    std::vector<VarOrRVar> order, blocks{bx, by};
    for (size_t d = 2; d < cv.size(); d++)
        if (is_scan(d)) order.push_back(cv[d]);
    for (const VarOrRVar &v : {VarOrRVar(tx), VarOrRVar(ty), VarOrRVar(bx), VarOrRVar(by)}) order.push_back(v);
    for (size_t d = 2; d < cv.size(); d++)
        if (!is_scan(d)) order.push_back(cv[d]), blocks.push_back(cv[d]);
    w.reorder({copy}, order);
    w.gpu_threads({copy}, tx, ty);
    const VarOrRVar at = gpu_blocks_over(w, {copy}, blocks, tag, 2);
    // No loop split into prologue, steady state and epilogue (here or in the scan's stages): each
    // split doubles the tile's code, and with it the registers (64, with spills, against 40).
    w.never_partition_all({copy});
    if (scan.empty()) {
        // A reduction at each point (every update writes the pure vars in place: a Tuple argmin
        // along rows): computed at each point of the copy, in the thread's registers, instead of per
        // tile in shared memory, where each step of the walk loaded and stored the point there.
        w.compute_at(f, copy, tx);
        return;
    }
    // The scan per tile: its region there is the tile itself (guarded at the edges), so each stage's
    // two innermost pure vars are the threads, unsplit, with its other dims and its RDom looping
    // inside each thread. (Split by the tile instead, each step kept a loop of one iteration around
    // it and loaded the first value again: 2339 against 1889 us for max_filter's scan on the H100.)
    w.compute_at(f, copy, at);
    const std::vector<Var> fv = pure_vars(f);
    for (int stage = -1; stage < int(fn.updates().size()); stage++) {
        const StageRef s{f, stage};
        std::vector<VarOrRVar> inner;
        if (stage >= 0)
            for (auto &rv : fn.update(stage).schedule().rvars()) inner.push_back(RVar(rv.var));
        for (size_t d = 2; d < fv.size(); d++)
            if (stage < 0 || !is_scan(d)) inner.push_back(fv[d]);
        inner.push_back(fv[0]);
        inner.push_back(fv[1]);
        w.reorder(s, inner);
        w.gpu_threads(s, fv[0], fv[1]);
        w.never_partition_all(s);
    }
}

}  // namespace solder
