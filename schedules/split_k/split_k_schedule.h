// Split-K templates: a reduction over many rows whose kernel has too few blocks to fill the GPU is
// summed in slices by launches of their own into partials (an rfactor intermediate at root); the
// reduction's own kernel then adds the partials.
#pragma once
#include <string>
#include <vector>

#include "Halide.h"
#include "schedules/writer/schedule_writer.h"

namespace solder {

// Split-K partials of reduction `f` (one associative update), before `f` is placed by its kernel's
// template: its RVars are fused and cut into slices of `slice_rows` points (`slices` of them at the
// planned extents; where the extents come from inputs or parameters, as many as the run-time rows
// need, the last one guarded); an rfactor intermediate, computed at root in one launch, sums each
// slice with threads across `f`'s innermost pure dim (a launch that zeroes the partials, one that
// sums); `f` itself then adds the partials of each result. Returns the intermediate.
// The grid dims of the zeroing launch of partials laid out in contraction tiles (the partials' last
// dims: a contraction's second tile dim and the slices); the dims before them are fused along its
// threads (schedules/launch_shapes.cpp sizes that launch from this).
constexpr int kZeroGridDims = 2;
// `contraction_dy` >= 1: `f` is a contraction over its dims `contraction_dx` and `contraction_dy`
// (autosched's contraction_over), and the partials are laid out as its tiles
// (schedule_contraction_tile_root), the slices a grid dim, its other dims loops in each block.
// `interleaved`: the threads run along `f`'s dims 0 and 1 fused (an interleaved image's channels
// and pixels), blocks over the strips of those and the other dims.
Halide::Func schedule_split_k_partials(ScheduleWriter &w, Halide::Func f, int64_t slice_rows,
                                       const Halide::Target &target, int contraction_dx = -1, int contraction_dy = -1,
                                       bool interleaved = false);

// One reduction of a shared split-K launch, with its iteration domain (autosched/model/reduction_domain.h):
// per position, innermost first, its pure var or RVar.
struct SharedSplitMember {
    Halide::Func f;
    std::vector<std::string> domain;
    std::vector<bool> reduced;
};

// The rfactor step of a shared split-K alone, before any template lays the partials out: each
// member cut along domain position `walk` into slices of `rows` points, its other RVars kept as
// pure dims under `names` (see schedule_shared_split_k). The partials' slice dim is `slice`; the
// RVar each of them walks its slice with is `step`.
struct SharedSplitPartials {
    std::vector<Halide::Func> partials;  // one per member, in order
    Halide::Var slice;
    Halide::RVar step;
};
SharedSplitPartials rfactor_shared_split_k(ScheduleWriter &w, const std::vector<SharedSplitMember> &members,
                                           const std::vector<std::string> &names, int walk, int64_t rows);

// Split-K partials of several reductions over one iteration domain (nvfuser's four column sums of
// the same rows), summed in one pair of launches (zeroing, sums) instead of a pair each. Each
// member is cut along domain position `walk` (reduced in all) into slices of `rows` points; its
// other RVars become pure dims of its partials, so every member's partials have the same dims
// (the other positions, then the slice). `names`: the loop name of each position in every member
// (autosched's shared_position_names: the walk's RVar, the pure vars they keep, the names given
// to the others), so that each stage can be fused into the first member's (compute_with matches
// loops by name). Threads go across position 0, `vector_width` neighbours each (CUDA only: masked
// tail vectors do not compile for OpenCL); each thread walks its slice, and at each step
// every member reads the same point, so what they share is loaded once. The reductions then add
// their partials in their own kernels. Returns the intermediates, in order.
std::vector<Halide::Func> schedule_shared_split_k(ScheduleWriter &w, const std::vector<SharedSplitMember> &members,
                                                  const std::vector<std::string> &names, int walk, int64_t rows,
                                                  int vector_width, const Halide::Target &target);

// A split reduction that is its kernel's root adds its partials in each thread (one per result):
// its longest RVar innermost, unrolled, so that the partials' loads are in flight together instead
// of one after another (nvfuser's 224 partials per column took 75 us as a serial chain).
// Unrolled deeper than a row walk (kLoadsInFlight): such roots have few threads (one per result:
// nvfuser's column-sum roots run 4 blocks), so each thread's own loads are all the latency hiding
// there is. Measured on the H100, those roots (56 x 4 partials per column, 2 launches): unrolled
// 14 deep 16.4 us, 28 deep 13.6 us, 56 deep 12.7 us, at 30-32 registers each.
constexpr int kPartialsInFlight = 64;
void unroll_partials_sum(ScheduleWriter &w, Halide::Func f);

// The same sum spread over kPartialLanes threads per result, for a 1-D root: its longest RVar (an
// extent kPartialLanes divides) split into kPartialLanes pieces, each one lane's, their sums a new
// Func (returned; undefined where the root does not qualify) that the caller computes per block
// with a thread per (result, lane); the root then adds kPartialLanes values per result. A root
// that adds its partials in one thread per result ran 4 blocks for nvfuser's 1024 columns (12%
// occupancy under ncu, each thread adding 224 partials).
constexpr int kPartialLanes = 8;
Halide::Func spread_partials_sum(ScheduleWriter &w, Halide::Func f);

}  // namespace solder
