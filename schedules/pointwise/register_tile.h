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

// Contractions (autosched/model/contraction.h: a matrix product, attention's scores, a 1 x 1
// convolution over channels), other than small windows. Each thread computes kContractionTile x kContractionTile points of those
// dims, kContractionThreads x kContractionThreads threads per block, so that at every step an
// operand's load serves kContractionTile points; the steps unrolled by kContractionStepUnroll
// (measured on the H200, a user's 1024^3 f32 product: one point per thread 360.5 us; 4 x 4 points,
// 16 x 16 threads, steps by 4: 161.8; 4 x 8 points 342.7 and 8 x 4 351.3, their registers spilled
// at the 64 cap; 2 x 4 189.6; steps by 8 169.5, by 2 185.4; 16 x 8 threads 161.8, 32 x 8 187.2).
constexpr int kContractionTile = 4;
constexpr int kContractionThreads = 16;
constexpr int kContractionStepUnroll = 4;

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
// The dim of such a root its rows lie along: the first above 0 along which neighbouring points'
// windows overlap where that is dim 2 or above with at least kRegisterTileRows points at the
// estimates (a block matcher's sums `sad(bx, by, dx, dy)` over each 8 x 8 block and offset: its
// offsets dx, whose windows overlap, not its blocks by, 8 rows apart); else 1.
int register_rows_dim(const FuncGraph &g, int root);

// A dim of the root (register_tile_root) besides 0 and `dy` with 2 to kMaxSharedPoints points at
// the estimates along which part of its window's work is the same: its update reads a Func at
// points that do not depend on that dim (a weighted sum's weights, `acc(x, y, c) += w(x, y, o.x,
// o.y) * img(x + o.x, y + o.y, c)`), so each thread computing the dim's points together computes
// that part once for them, with 65536 threads or more left at the estimates. Measured on the H200, a user's non-local means (4
// channels: three weighted colour sums and the weights' total, 7 x 7 windows) took 1521 us so
// against 2074 with a block per channel (Anderson2021: 1782). -1: none.
int register_shared_dim(const FuncGraph &g, int root, int dy);
constexpr int64_t kMaxSharedPoints = 4;
// The rows each thread computes along such a dim of `extent` points at the estimates (2 or
// above): all of them up to kMaxRowsApart, else the count from kRegisterTileRows to kMaxRowsApart
// that leaves the fewest rows past the end in the last group (the largest of those). Measured on
// the H200, a user's block matcher over 9 offsets dx: 4 rows per thread (groups of 4, 4 and 1)
// 119.5 us, 3 rows 90.7, 9 rows 82.3 (one point per thread along the blocks, rows along by: 196.3;
// Anderson2021 120.9).
constexpr int kMaxRowsApart = 12;
int rows_apart(int64_t extent);

// The members of `root`'s kernel that are contractions (above), read in the kernel only at its
// points as register_tile_members's are (or with their dims in another order: an inline `sum`
// names its vars in the order its expression meets them), where every reduction member of the
// kernel is one and the root spans a block's tile of points at the estimates (on a GPU). Empty where
// there is none. The tile lies over the root's dims 0 and `dy` (a 1 x 1 convolution's channels
// and columns, `w(c, k) * in(x, y, c)`, over dims 0 and 2); `dims`: for each member, its dims that
// are those.
std::vector<std::string> contraction_members(const FuncGraph &g, int root, const std::vector<int> &members,
                                             const std::function<bool(int)> &only_here, int dy,
                                             std::vector<std::pair<int, int>> &dims);

// The inputs contraction `member` of `root`'s kernel (`members`; its dims `dx` and `dy` the tile's)
// loads a vector of steps at a time (schedules/pointwise/operand_vectors.h): where `root` is an
// output (its branch for whole tiles is a condition on its buffer) and no Func of the kernel reads
// `member` under a condition (the rows a wrapper loads would then be bounded by it, a loop over
// them would stay, and the wrapper would live in local memory). Empty: none.
std::vector<std::string> vector_operand_inputs(const FuncGraph &g, int root, const std::vector<int> &members,
                                               const std::string &member, int dx, int dy);
// Whether `root` is itself a contraction over its dims 0 and `dy` spanning a block's tile of points
// at the estimates (`out(x, y) += A(k, y) * B(x, k)` written as the output): its steps go to an
// intermediate as a window's do.
bool contraction_root(const FuncGraph &g, int root, int dy);

}  // namespace autosched

// Lays out `root` in tiles of 32 x (8 x `rows`) points over its two innermost dims, 32 x 8 threads
// (each computing `rows` points of dim 1, unrolled, innermost), tails guarded, the other dims as
// grid dims; each of `members` computed per thread over those rows, its update with the rows
// innermost, then its RVars, all unrolled.
void schedule_register_tile(ScheduleWriter &w, Halide::Func root, const std::vector<Halide::Func> &members, int rows);

// The contraction layout: `root` in kContractionThreads x kContractionThreads threads, each
// computing kContractionTile points of dim 0 by kContractionTile of dim `dy` (both unrolled), tails
// guarded, its other dims block dims; each of `members` computed per thread over those points
// (`dims`: its dims that are the root's 0 and `dy`; `guarded`: read under a condition by some
// Func of the kernel), its first RVar split by kContractionStepUnroll (unrolled) outside the
// points; `loads_vectors`: whether each loads its inputs along its steps as vectors
// (vector_operand_inputs), the root's tiles then shifted inwards in a branch for a root at least a
// tile wide, one point per thread otherwise.
void schedule_contraction_tile(ScheduleWriter &w, Halide::Func root, int dy, const std::vector<Halide::Func> &members,
                               const std::vector<std::pair<int, int>> &dims, const std::vector<bool> &guarded,
                               const std::vector<bool> &loads_vectors);

// The same for a root that is the contraction (contraction_root), through an intermediate as in
// schedule_register_tile_root. With `dx` above 0 the tile lies over dims `dx` and `dy` (a filter's
// weight gradient over its channels in and out). The other dims are grid dims, or with
// `serial_others` (split-K partials) all but the outermost (the slices) loop in each block around
// its threads: a grid of more than three dims is fused, and Halide bounded the per-thread steps over
// the whole of a fused dim's inner part (a weight gradient's taps: its tile overflowed). Its pure
// stage (the partials' zeroing) is then left to the caller.
void schedule_contraction_tile_root(ScheduleWriter &w, Halide::Func root, int dy, int dx = 0,
                                    bool serial_others = false);

// The same for a root that is the reduction (register_tile_root): its update's whole window becomes
// an intermediate (rfactor keeping no RVar) computed per thread for its rows as a member is, and
// both of the root's stages are laid out so (two launches: the initial values, then the sums).
// Its rows lie along dim `dy` (register_rows_dim); above 1, the threads lie over dims 0 and 1 and
// the rows' groups are a grid dim. With `shared_dim` 0 or above, each thread computes
// `shared_points` points of that dim too (register_shared_dim), unrolled inside its rows, the
// window's steps then loops.
void schedule_register_tile_root(ScheduleWriter &w, Halide::Func root, int rows, int dy = 1, int shared_dim = -1,
                                 int shared_points = 0);

}  // namespace solder
