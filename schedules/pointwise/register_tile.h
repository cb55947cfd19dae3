// Register tiles in the pointwise template: a pure root that reads, one to one, a Func reducing at
// each point over a small window of constant extent (`out(x, y) = sum(in(x + r.x, y + r.y) *
// w(r.x, r.y))`, a convolution with its weights as a buffer) otherwise computes every point's
// window alone, one point per thread: each tap loads its input and its weight again. Here each
// thread computes several rows of the root, the reduction for all of them at once with the rows
// innermost and every step of constant extent unrolled, so a weight is loaded once for the rows and the rows' windows
// share their overlapping loads (the compiler keeps each loaded value in a register).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "Halide.h"
#include "autosched/model/func_graph.h"
#include "schedules/writer/schedule_writer.h"

namespace solder {

// Rows of the root each thread computes, and the most steps (the product of the RDom's constant
// extents) a reduction so computed may take: every step is unrolled for every row.
constexpr int kRegisterTileRows = 4;
constexpr int64_t kMaxRegisterTileSteps = 64;

namespace autosched {

// The members of `root`'s kernel computed per thread for kRegisterTileRows rows (on a GPU): a pure
// root (no specializations) of two dims or more, at least a 32 x 8 tile of threads with their rows
// at the estimates, and members read in the kernel only at its points (its vars in order, by the
// root or through pure Funcs inlined into it that it so reads: `out = vsum / wsum`), computed in no
// other kernel (`only_here`), each with one
// update that reduces at each point over an RDom (no predicate) of 2 steps or more, at most
// kMaxRegisterTileSteps of them of constant extent (unrolled),
// at the estimates (extents known only at run time, a window sized by its weights' buffer, stay
// loops). Empty where there is none.
std::vector<std::string> register_tile_members(const FuncGraph &g, int root, const std::vector<int> &members,
                                               const std::function<bool(int)> &only_here);

// Whether `root` is itself such a reduction (`conv(x, y) += in(x + r.x, y + r.y) * w(r.x, r.y)`
// written as the output, or a stereo matcher's window sums per disparity, stored for the arg-min
// over them), over the same tile of points at the estimates. Its window goes to an intermediate
// (schedule_register_tile_root): an output's readers cannot read a copy, and a stored Func's
// readers read it at other points than its own.
bool register_tile_root(const FuncGraph &g, int root);

}  // namespace autosched

// Lays out `root` in tiles of 32 x (8 x `rows`) points over its two innermost dims, 32 x 8 threads
// (each computing `rows` points of dim 1, unrolled, innermost), tails guarded, the other dims as
// grid dims; each of `members` computed per thread over those rows, its update with the rows
// innermost, then its RVars, all unrolled.
void schedule_register_tile(ScheduleWriter &w, Halide::Func root, const std::vector<Halide::Func> &members, int rows);

// The same for a root that is the reduction (register_tile_root): its update's whole window becomes
// an intermediate (rfactor keeping no RVar) computed per thread for its rows as a member is, and
// both of the root's stages are laid out so (two launches: the initial values, then the sums).
void schedule_register_tile_root(ScheduleWriter &w, Halide::Func root, int rows);

}  // namespace solder
