#include "schedules/reduction_tile/reduction_tile_schedule.h"

#include "autosched/model/pipeline_funcs.h"
#include "schedules/stencil_tile/stencil_schedule.h"
#include "schedules/writer/block_reduce.h"

namespace solder {
using namespace Halide;

namespace {

// Rows each thread of a 32 x 8 block writes of a 32 x 32 tile (unrolled).
constexpr int kRowsPerThread = kStencilTileY / kStencilThreadsY;

// A stage over the tile's 32 x 32 points: x across the 32 threads of a warp, y in 8 turns of 4
// rows, the rows unrolled; `outer` (the update's RVar) outermost.
void deal_tile(ScheduleWriter &w, const StageRef &s, const Var &x, const Var &y, const std::string &tag,
               const std::vector<VarOrRVar> &outer) {
    // Split by the tile's own width too: Halide bounds a thread loop over the tile's region, a
    // run-time extent at the image's edges, only when a split makes it a constant.
    Var xo(tag + "_xo"), tx(tag + "_tx"), yo(tag + "_yo"), yi(tag + "_yi"), yt(tag + "_yt"), yr(tag + "_yr");
    w.split(s, x, xo, tx, kStencilThreadsX, TailStrategy::GuardWithIf);
    w.split(s, y, yo, yi, kStencilTileY, TailStrategy::GuardWithIf);
    w.split(s, yi, yt, yr, kRowsPerThread, TailStrategy::GuardWithIf);
    std::vector<VarOrRVar> order{yr, tx, yt, xo, yo};
    order.insert(order.end(), outer.begin(), outer.end());
    w.reorder(s, order);
    w.gpu_threads(s, tx, yt);
    w.unroll(s, yr, kRowsPerThread, TailStrategy::GuardWithIf);
}

}  // namespace

void schedule_reduction_tile_kernel(ScheduleWriter &w, Func root, Func reduction, const std::vector<Func> &per_tile,
                                    std::optional<Func> per_step) {
    const std::string tag = root.name();
    std::vector<Var> v = pure_vars(root);
    Var xo(tag + "_xo"), yo(tag + "_yo"), xi(tag + "_xi"), yi(tag + "_yi"), yt(tag + "_yt"), yr(tag + "_yr");
    w.compute_root(root);
    w.tile({root}, v[0], v[1], xo, yo, xi, yi, kStencilTileX, kStencilTileY, TailStrategy::GuardWithIf);
    w.split({root}, yi, yt, yr, kRowsPerThread, TailStrategy::GuardWithIf);
    w.reorder({root}, {yr, xi, yt, xo, yo});
    w.gpu_threads({root}, xi, yt);
    // The tiles on the grid as the plan maps it (ScheduleWriter::grid_map): the Funcs per tile go in
    // the innermost block loop.
    const Var tile_loop = blocks_over(w, {root}, {xo, yo}, tag, 2);
    w.unroll({root}, yr, kRowsPerThread, TailStrategy::GuardWithIf);
    // Where the Funcs per tile mix element sizes (8-bit images, 32-bit costs), each allocation is
    // padded to whole 8-byte words (Halide issue 6803, schedules/writer/block_reduce.h).
    std::vector<Func> on_chip = per_tile;
    on_chip.push_back(reduction);
    if (per_step) on_chip.push_back(*per_step);
    const bool mixed = mixed_element_sizes(on_chip);
    for (Func f : on_chip) pad_block_allocation(w, f, mixed);

    // The reduction per tile: its initial values, then its RVar loop with the tile's threads inside
    // each step (a barrier between steps), so that each step's producers are computed per tile.
    std::vector<Var> rv = pure_vars(reduction);
    const std::string rtag = reduction.name();
    w.compute_at(reduction, root, tile_loop);
    deal_tile(w, {reduction}, rv[0], rv[1], rtag, {});
    const auto rvars = reduction.function().update(0).schedule().rvars();
    RVar step(rvars[0].var);
    deal_tile(w, {reduction, 0}, rv[0], rv[1], rtag + "_u", {step});

    // Before the RVar loop, once per tile: the inputs' boundary conditions the steps read. Halide 21
    // packs a block's shared allocations by the barrier stages they are live in, and counts a serial
    // loop's body once: a Func allocated outside the loop and read inside it is taken as dead after
    // its last read in the body, and a second Func staged later in the body would take its memory,
    // overwriting it before the next step reads it. So each step stages one Func only, in the body's
    // first stage, where these are still live.
    for (Func f : per_tile) {
        w.compute_at(f, root, tile_loop);
        deal_rows_and_columns_to_threads(w, {f}, false);
    }
    if (!per_step) return;
    w.compute_at(*per_step, reduction, step);
    deal_rows_and_columns_to_threads(w, {*per_step}, false);
}

}  // namespace solder
