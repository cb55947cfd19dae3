#include "schedules/stencil_tile/stencil_schedule.h"

#include <algorithm>
#include <set>

#include "autosched/model/pipeline_funcs.h"
#include "schedules/writer/schedule_writer.h"
#include "schedules/unfused/unfused.h"
#include "schedules/writer/block_reduce.h"
#include "schedules/writer/window_steps.h"

namespace solder {
using namespace Halide;

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

void deal_producer_to_threads(ScheduleWriter &w, const StageRef &f) {
    std::vector<Var> fv = pure_vars(f.func);
    if (fv.empty()) {
        w.one_thread_of_block(f);
        return;
    }
    const std::string tag = f.func.name();
    Var turn(tag + "_turn"), tx(tag + "_tx"), ty(tag + "_ty");
    if (fv.size() >= 2) {
        Var xo(tag + "_xo"), rows(tag + "_rows");
        w.split(f, fv[0], xo, tx, kStencilThreadsX, TailStrategy::GuardWithIf);
        w.fuse(f, xo, fv[1], rows);  // each 32-wide piece of each row, in turn
        w.split(f, rows, turn, ty, kStencilThreadsY, TailStrategy::GuardWithIf);
    } else {
        Var lane(tag + "_lane");
        w.split(f, fv[0], turn, lane, kStencilThreadsX * kStencilThreadsY, TailStrategy::GuardWithIf);
        w.split(f, lane, ty, tx, kStencilThreadsX, TailStrategy::RoundUp);
    }
    w.reorder(f, {turn, tx, ty});
    w.gpu_threads(f, tx, ty);
    w.unroll(f, turn, kTileProducerUnroll, TailStrategy::GuardWithIf);
}

// Each stage of `f`: a reduction computed per tile (one result per point, its updates writing its
// pure vars in order) is dealt to the threads stage by stage, its RDom serial in each thread.
std::vector<StageRef> stages_of(Func f) {
    std::vector<StageRef> s;
    for (int u = -1; u < int(f.function().updates().size()); u++) s.push_back({f, u});
    return s;
}

}  // namespace

// Turns of 8 rows unrolled together when a producer's columns and rows are dealt apart (below):
// up to 64 rows of a 32-wide piece per pass, their loads in flight together.
constexpr int kTileRowTurnUnroll = 8;

// The most steps of constant extent (the product of their RVars' extents) a reduction computed at
// each point of its reader unrolls, all of them, else its innermost RVar by kPerPointStepUnroll
// (schedules/writer/window_steps.h). Left as Halide's serial loops, each step waited on its load.
constexpr int64_t kPerPointWindowSteps = 64;
constexpr int kPerPointStepUnroll = 8;
// The most steps a reduction computed per tile unrolls in each turn of its threads (each turn is
// unrolled too: kTileProducerUnroll).
constexpr int64_t kTileReductionSteps = 16;

// A producer whose per-tile region has run-time extents: columns of 32 and rows of 8 split apart,
// each guarded. The flattened walk below fuses the 32-wide pieces with the rows, so each point's
// piece and row come from a division by the number of pieces, a run-time value when the region's
// width is: a signed division and a remainder by a register per point, which left a stencil
// chain's intermediate kernel (guarded tiles, regions that shrink at the image's edges) bound by
// integer instructions, 217 us where the same kernel with whole tiles has no division. Read
// through a resampling, Halide's bounds of that quotient also span negative rows: a local
// Laplacian read its input at row -1535 (Halide error -4 at 1536 x 2560). With `unroll_turns`,
// each 32-wide piece's turns of 8 rows are unrolled kTileRowTurnUnroll at a time.
void deal_rows_and_columns_to_threads(ScheduleWriter &w, const StageRef &f, bool unroll_turns) {
    std::vector<Var> fv = pure_vars(f.func);
    const std::string tag = f.func.name();
    Var xo(tag + "_xo"), yo(tag + "_yo"), tx(tag + "_tx"), ty(tag + "_ty");
    w.split(f, fv[0], xo, tx, kStencilThreadsX, TailStrategy::GuardWithIf);
    w.split(f, fv[1], yo, ty, kStencilThreadsY, TailStrategy::GuardWithIf);
    if (unroll_turns) {
        w.reorder(f, {tx, ty, yo, xo});
        w.gpu_threads(f, tx, ty);
        w.unroll(f, yo, kTileRowTurnUnroll, TailStrategy::GuardWithIf);
    } else {
        w.reorder(f, {tx, ty, xo, yo});
        w.gpu_threads(f, tx, ty);
    }
}

void schedule_stencil_kernel(ScheduleWriter &w, Func root, int inner_dims, bool whole_tiles, bool root_is_output,
                             const std::vector<Func> &at_tile, const Target &target,
                             const std::vector<std::string> &resampled, const std::vector<Func> &per_point,
                             const std::vector<std::string> &rows_per_thread) {
    w.compute_root(root);
    std::vector<Var> v = pure_vars(root);
    const std::string tag = root.name();
    Var xo(tag + "_xo"), yo(tag + "_yo"), xi(tag + "_xi"), yi(tag + "_yi");
    if (is_gpu_target(target)) {
        // A kStencilTileX x kStencilTileY tile per block of 32 x 8 threads: each thread writes a
        // column of 4 neighbouring rows (unrolled: the loads of its rows are in flight together,
        // and rows share the shared-memory loads of their overlapping taps). Producers per tile.
        Var tile_loop = xo;  // the innermost block loop: the tiles' producers are computed there
        auto tiles = [&](const StageRef &s, TailStrategy edge) {
            Var yt(tag + "_yt"), yr(tag + "_yr");
            w.tile(s, v[0], v[1], xo, yo, xi, yi, kStencilTileX, kStencilTileY, edge);
            w.split(s, yi, yt, yr, kStencilTileY / kStencilThreadsY, TailStrategy::RoundUp);
            w.reorder(s, {yr, xi, yt, xo, yo});
            keep_inside_tile(w, s, v, inner_dims, {yr, xi, yt}, xo, yo);
            w.gpu_threads(s, xi, yt);
            std::vector<VarOrRVar> outer;
            for (size_t d = std::max(2, inner_dims); d < v.size(); d++) outer.push_back(v[d]);
            const bool changes = grid_changes(w, 2 + outer.size(), 2);
            if (changes) {
                // The grid as the writer maps it (schedules/writer/schedule_writer.h).
                std::vector<VarOrRVar> blocks{xo, yo};
                blocks.insert(blocks.end(), outer.begin(), outer.end());
                tile_loop = blocks_over(w, s, blocks, tag, 2);
            } else {
                w.gpu_blocks(s, xo);
                w.gpu_blocks(s, yo);
            }
            w.unroll(s, yr, kStencilTileY / kStencilThreadsY, TailStrategy::GuardWithIf);
            if (!outer.empty() && !changes) {
                // The tiles take grid x and y: every outer dim goes to z, fused (a fourth block
                // loop is one Halide refuses).
                VarOrRVar z = outer[0];
                for (size_t i = 1; i < outer.size(); i++) {
                    Var next(tag + "_oz" + std::to_string(i));
                    w.fuse(s, z, outer[i], next);
                    z = next;
                }
                w.gpu_blocks(s, z);
            }
        };
        const bool shifts_edge_tiles = root_is_output && root.outputs() == 1 && root.function().updates().empty();
        if (!whole_tiles) {
            tiles({root}, TailStrategy::GuardWithIf);
        } else if (!w.guards_every_tail()) {
            tiles({root}, TailStrategy::ShiftInwards);
        } else if (shifts_edge_tiles) {
            // Sizes known only at run time: edge tiles shift inwards where the output spans a tile
            // (a specialization), and are guarded where it does not.
            tiles({root, -1, kStencilTileX, kStencilTileY}, TailStrategy::ShiftInwards);
            tiles({root}, TailStrategy::GuardWithIf);
        } else {
            tiles({root}, TailStrategy::GuardWithIf);
        }
        // Every tile whole (shifted inwards at the edges) where sizes allow: the producers' regions
        // per tile are constants there, and the flattened walk divides by a constant.
        const bool constant_regions = whole_tiles && (!w.guards_every_tail() || shifts_edge_tiles);
        const bool mixed = mixed_element_sizes(at_tile);
        for (Func f : at_tile) {
            w.compute_at(f, root, tile_loop);
            pad_block_allocation(w, f, mixed);
            const bool two_d = pure_vars(f).size() >= 2;
            for (const StageRef &s : stages_of(f))
                if (two_d && std::find(resampled.begin(), resampled.end(), f.name()) != resampled.end())
                    deal_rows_and_columns_to_threads(w, s, false);
                else if (two_d && !constant_regions)
                    deal_rows_and_columns_to_threads(w, s, true);
                else
                    deal_producer_to_threads(w, s);
            // (A reduction computed per tile: its steps unrolled in each thread's turn, where few.)
            if (!f.function().updates().empty()) unroll_window_steps(w, f, kTileReductionSteps, 1, false);
        }
        for (Func f : per_point) {
            if (std::find(rows_per_thread.begin(), rows_per_thread.end(), f.name()) != rows_per_thread.end())
                window_per_thread(w, f, root, xi, kStencilTileY / kStencilThreadsY);
            else
                unroll_window_steps(w, f, kPerPointWindowSteps, kPerPointStepUnroll);
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
            // (A reduction computed per tile: its updates as Halide runs them, said so.)
            for (int u = 0; !fv.empty() && u < int(f.function().updates().size()); u++) w.unscheduled({f, u});
        }
    }
}

}  // namespace solder
