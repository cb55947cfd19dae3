// How a thread computes a reduction over a small window (a convolution's taps, a box sum, a
// morphological minimum) at the points it owns: the steps of constant extent unrolled, so that
// their loads are in flight together and the compiler keeps each loaded value in a register, and
// where the thread owns several rows, the rows' windows reduced together so that their overlapping
// taps are loaded once. Used by the register tiles (schedules/pointwise/register_tile.h) and the
// stencil tiles (schedules/stencil_tile).
#pragma once
#include <cstdint>

#include "Halide.h"
#include "schedules/writer/schedule_writer.h"

namespace solder {

// `m` computed per thread of `root` (at `tx`) for the thread's `rows` rows: its update with the rows
// innermost, then its RVars, every loop of constant extent unrolled, its storage a constant rows x 1
// x ... (in registers; sized by its region, which the guarded rows make `min(rows, the output's
// rows)`, Halide allocated it in global memory: 52 against 42.6 us on the H100). Plain unrolls: the
// rows' loop has at most `rows` points, which Halide finds (split by `rows` under a guard, the kernel
// took 203 us).
// (`dy`: the dim the rows lie along, 1 unless the root's tiles keep them apart: lay_out_tile.
// `shared_dim`: a dim whose `shared_points` points the thread also computes together, its steps
// then loops.)
void window_per_thread(ScheduleWriter &w, Halide::Func m, Halide::Func root, const Halide::Var &tx, int rows,
                       int dy = 1, int shared_dim = -1, int shared_points = 0);

// Every update of `m` (a reduction computed where Halide puts it by default, at each point of its
// reader, or one whose update a block's threads share) with its RVars of constant extent unrolled
// where there are at most `most_steps` steps of them in all; else only the innermost RVar, by up to
// `innermost` steps. Not an update with an RDom::where predicate: each unrolled step keeps its
// guard and its predicate (a user's triangular sums took 44 us unrolled, 35.5 not).
// `rest_unscheduled`: the updates not unrolled are said to keep Halide's default loops (false where
// the caller schedules them).
void unroll_window_steps(ScheduleWriter &w, Halide::Func m, int64_t most_steps, int innermost,
                         bool rest_unscheduled = true);

}  // namespace solder
