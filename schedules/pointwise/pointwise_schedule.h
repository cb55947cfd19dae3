// The pointwise template's Halide half.
#pragma once
#include <string>
#include <vector>

#include "Halide.h"
#include "schedules/writer/schedule_writer.h"

namespace solder {

// Pointwise template: 256-thread blocks along the innermost dim, outer dims as grid dims; with
// `vector_width` > 1 (GPU, pure Funcs, width dividing the innermost extent) each thread handles
// that many neighbours with wide loads and stores. Otherwise the unfused schedule's own kernel.
// With `threads_y` > 1 (a rank-2 or higher root), blocks of `threads_x` accesses by `threads_y` rows
// of the next dim; for a root with updates (a reduction per point, serial in each thread), or with
// `vector_width` 1 (scattered gathers), 2-D tiles of `threads_x` x `threads_y` threads over every
// stage's two innermost dims.
// A root with updates in 2-D tiles on a GPU: kPointwiseTileX x kPointwiseTileY threads.
constexpr int kPointwiseTileX = 32, kPointwiseTileY = 8;

// With `unroll_rows` > 1 (the vector path), each thread computes that many points of the next dim,
// unrolled. With `unroll_dim` >= 2 (the vector path, a pipeline output where sizes are known only
// at run time), each thread computes the `unroll_extent` points of that dim, unrolled, in a branch
// where the output's dim starts at 0 and has that many points (at fixed sizes, the only schedule):
// PointwiseParams::unroll_dim. With `unroll_dim` 0 (one point per thread, an interleaved image's
// channels), each thread computes that dim's points, unrolled in that branch and walked serially
// beside it, in tiles of `threads_x` x `threads_y` threads over dims 1 and 2 (`threads_x` along
// dim 1 of a 2-D root). With `unroll_vector`, the points of `unroll_dim` (2 or above) are a vector
// instead of unrolled (PointwiseParams::unroll_vector). `tag` names the loops it makes (the root's
// name when empty).
void schedule_pointwise_kernel(ScheduleWriter &w, Halide::Func root, int vector_width, const Halide::Target &target,
                               int threads_x = 256, int threads_y = 1, const std::string &tag = "", int unroll_rows = 1,
                               int unroll_dim = -1, int unroll_extent = 0, bool unroll_vector = false);

// Each stage of `root` (no Func computed inside it: fused dims lose the bounds of what is) with its
// pure dims but the last fused into one along `threads` threads per block, the last a grid dim, its
// RVars (each stage's loops inside its points) kept where they are: PointwiseParams::flat.
void schedule_flat_kernel(ScheduleWriter &w, Halide::Func root, int threads);

// A reduction root that reduces at each point (every update writes its pure vars in place), no
// pipeline output, on a GPU, in 2-D tiles of `threads_x` x `threads_y` threads: its readers read a
// copy (Func::in) laid over the tiles, one point per thread, and the reduction is computed at each
// point of the copy, in the thread's registers, in one launch. Laid out at root itself, each stage is
// a launch over the whole Func, and each step of the update loads and stores the point in global
// memory (nl_means's patch sums: 12.5 ms of its 14.7 on the H100, 49 stores per point). Returns the
// copy.
// `walk_dim0`: an interleaved image's (PointwiseParams::unroll_dim 0): the copy's tiles over dims 1
// and 2, each thread computing its pixel's points of dim 0 (the reduction's stages walk them).
Halide::Func schedule_pointwise_reduction_in_registers(ScheduleWriter &w, Halide::Func root, int threads_x,
                                                       int threads_y, bool walk_dim0 = false);

// A pure root on a GPU whose dim `serial_dim` (above the innermost) each thread walks serially,
// innermost: `threads_x` threads along the innermost dim, the other dims as grid dims. Returns the
// thread loop, where Funcs the thread computes once for the whole walk go. `unroll` > 1: the walk
// unrolled by that many points (its tail guarded).
Halide::VarOrRVar schedule_pointwise_serial_dim(ScheduleWriter &w, Halide::Func root, int threads_x, int serial_dim,
                                                int unroll = 1);

// Sibling roots (pure, the same pure var names and extents, GPU) in one launch: each laid out as
// schedule_pointwise_kernel does with `vector_width` > 1, under the first root's loop names, and
// fused into the first at the thread loop (compute_with), so that each thread computes its
// points of every root in turn; past a root's own extents its points are skipped.
void schedule_pointwise_siblings(ScheduleWriter &w, const std::vector<Halide::Func> &roots, int vector_width,
                                 const Halide::Target &target, int threads_x = 256, int threads_y = 1,
                                 int unroll_rows = 1);

}  // namespace solder
