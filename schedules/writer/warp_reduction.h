// A row's reduction summed by warps in registers (CUDA): each of a block's `warps` x 32 threads
// walks its share of the row with `vector`-wide loads into its own partial, each warp adds its 32
// partials with a shuffle tree (16, 8, 4, 2 lanes), and the block adds 2 values per warp from
// shared memory. Two barriers per reduction, where the shared-memory tree over 256 threads took
// three, and no shared-memory traffic until the last step. Measured on the H100: rmsnorm (bf16
// 8192 x 4096) 58.8 -> 50.4 us.
//
// Halide lowers this through `gpu_lanes` (LowerWarpShuffles): a Func computed inside a thread loop
// (here the warp's) around a lanes loop lives in registers, one slot per lane, and a read of
// another lane's slot becomes a shuffle. Each tree level is an rfactor of the one before, reading
// lane u + n/2 into lane u. The tree stops at 2 lanes: Halide put the last level's shuffles inside
// `if (lane < 1)`, a shuffle with a full mask that the other lanes never reach (wrong sums on the
// H100). OpenCL has no gpu_lanes; callers use the shared-memory tree there.
#pragma once
#include "Halide.h"
#include "schedules/writer/schedule_writer.h"

namespace solder {

// `f` (one update over one RVar whose constant extent 32 x warps x vector divides) is computed at
// `root`'s block loop `at`, one value per block. Its partial sums are new Funcs, all computed in
// the block. Returns the one of them stored per block (2 values per warp, in shared memory), which
// `f`'s update adds; `f`'s own stages are left to the caller.
Halide::Func warp_shuffle_reduction(ScheduleWriter &w, Halide::Func f, Halide::Func root, const Halide::Var &at,
                                    int warps, int vector);

}  // namespace solder
