// Which Funcs of a stencil tile kernel are computed once per tile (in shared memory) and which are
// inlined into their consumers: the planner's choice, recorded as each Func's placement.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "autosched/model/func_graph.h"

namespace solder::autosched {

// A Func inlined in place of a staged one is recomputed at each of its consumers' taps (9 for a
// 3x3 box): only Funcs this cheap (arithmetic per point, FuncNode::ops_per_point) are swapped out.
constexpr int64_t kMaxInlinedTileOps = 4;
// The most operations per point of a Func that counts as a cheap function of pipeline inputs or
// stored Funcs (a boundary condition's clamps, or repeat_image's remainders; a cast) for the
// stencil template's staging. Measured on the H200, four generations of the game of life on a
// 4096 x 4096 board read each through repeat_image (28 operations a point) took 535 us with it
// computed per tile, 115 us with it inlined at the 9 taps (Anderson2021: 271).
constexpr int64_t kMaxInputLikeOps = 32;

// A staged Func computed only from other staged Funcs (a second-level stencil: Harris's Ix and Iy
// of gray, the blur_x of blur and unsharp) is recomputed in each thread's registers instead
// (stencil_tile_staging) when that costs at most this many operations per output point:
// ops_per_point x the taps the tile's outputs read of it along x x (rows + taps along y - 1) /
// rows, for the column of `rows` outputs each thread writes (neighbouring rows share their taps).
// FuncNode::ops_per_point counts the taps' index arithmetic too: Harris's Ix (6 value operations,
// 10 index ones: 16) read at 3 x 3 taps costs 16 x 3 x 6 / 4 = 72; unsharp's blur_x (11) at 1 x 5
// taps 22; blur's (6) at 1 x 3 taps 9. A 16-operation Func under a 7 x 7 box would cost 280.
constexpr int64_t kMaxRecomputeOpsPerOutput = 96;
// A member read at an uneven index is inlined (stencil_tile_staging) when its operations per point
// (FuncNode::ops_per_point) x its distinct reads come to at most this: a bilinear resize's rows
// (31) read at two rows count 62. Staged, each launch would first evaluate every block's region on
// the host (about 60 us for that resize on the H100).
constexpr int64_t kMaxUnevenRecomputeOps = 512;
// Recompute cost as above, of member `m` of the stencil tile kernel whose root is `root`.
int64_t tile_recompute_ops_per_output(const FuncGraph &g, int m, int root);

struct TileStaging {
    std::set<int> staged;            // nodes computed per tile
    std::vector<std::string> notes;  // the changes below that were made, for the plan's explanations
};

// `members`: the Funcs of the tile kernel other than its root, each in no other kernel. By default
// every member read through a stencil is staged: a 3x3 consumer would otherwise recompute it 9
// times. Two kinds of cheap member are inlined instead:
// - one read at an uneven index (FuncEdge::uneven: rounded float coordinates): its region per tile
//   varies from tile to tile, and Halide then sizes each launch's shared memory by evaluating every
//   block's region on the host. Measured on the H100, a user's bilinear resize (1920 x 1080 ->
//   1280 x 720, planar RGB, float coordinates from the ratio of extents): 78 us with its clamped
//   input and its rows per tile, 18 us with both inlined;
// - one that reads no stencil of anything (a boundary condition or a cast of an input), read
//   through a stencil along rows only (taps along x, none along y): neighbouring threads load its
//   taps from the same cache lines, and staging adds a copy and a barrier per tile. Measured on
//   the H100, a user's batched 4-D difference along x of a clamped input (640 x 480 x 3 x 8): 89
//   us staged, 70 inlined.
// Then staged members that are cheap pointwise functions of other members (Harris's
// Ixx = Ix * Ix, Ixy = Ix * Iy, Iyy = Iy * Iy) are inlined into their stencil consumers, with
// those members staged instead, when that stages fewer Funcs: fewer tiles in shared memory to
// write and read, each of their points computed once. Measured on the H100: Harris 86.0 -> 73.7 us
// ({gray, Ix, Iy} per tile instead of {gray, Ixx, Iyy, Ixy}); the same swap is not made where the
// staged Funcs are stencils of their inputs (blur, unsharp).
// Then a staged member that reads no pipeline input, only staged members that stay staged, and costs
// at most kMaxRecomputeOpsPerOutput is inlined: each thread computes a column of rows
// (schedules/fused_templates.h), whose taps overlap, so it computes such a Func at few more points
// than it writes, from shared memory, and a tile written to shared memory, a barrier and the
// reads back are saved. Only one level: a Func inlined into another inlined one would be computed
// at every tap of every tap. Measured on the H100, the tile's first level staged alone against
// also staging the second: Harris 61.4 us (gray) against 69.8 (gray, Ix, Iy); unsharp 81.6 (gray)
// against 83.3 (gray, blur_x); blur 30.0 (the clamped input) against 30.3 (and blur_x). Staging
// nothing was slower for all three (78.0, 110.9, 32.5 us).
// Last, where the kernel's tiles are guarded (stencil_tiles_guarded: no branch of whole tiles) and
// what would be staged reads no stencil itself and costs at most kMaxRecomputeOpsPerOutput at all
// its taps, nothing is staged: each launch would first evaluate every block's region on the host.
// Measured on the H100, a user's 3x3 box of an interleaved uint8 image read unclamped (1920 x
// 1080 x 3): 31.7 us with its widened input per tile, 23.2 with nothing per tile.
TileStaging stencil_tile_staging(const FuncGraph &g, int root, const std::vector<int> &members);

// Whether member `m` is input-like: a pipeline input, a Func another kernel stores, or a cheap pure
// Func of such read at one point each (a boundary condition, a cast), through at most 3 such.
bool input_like(const FuncGraph &g, int m, int root, const std::vector<int> &members);

}  // namespace solder::autosched
