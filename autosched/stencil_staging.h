// Which Funcs of a stencil tile kernel are computed once per tile (in shared memory) and which are
// inlined into their consumers: the planner's choice, recorded as each Func's placement.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "autosched/func_graph.h"

namespace solder::autosched {

// A Func inlined in place of a staged one is recomputed at each of its consumers' taps (9 for a
// 3x3 box): only Funcs this cheap (arithmetic per point, FuncNode::ops_per_point) are swapped out.
constexpr int64_t kMaxInlinedTileOps = 4;

struct TileStaging {
    std::set<int> staged;  // nodes computed per tile
    std::string note;      // the swap below when made, for the plan's explanations; else empty
};

// `members`: the Funcs of the tile kernel other than its root, each in no other kernel. By default
// every member read through a stencil is staged: a 3x3 consumer would otherwise recompute it 9
// times. Then staged members that are cheap pointwise functions of other members (Harris's
// Ixx = Ix * Ix, Ixy = Ix * Iy, Iyy = Iy * Iy) are inlined into their stencil consumers, with
// those members staged instead, when that stages fewer Funcs: fewer tiles in shared memory to
// write and read, each of their points computed once. Measured on the H100: Harris 86.0 -> 73.7 us
// ({gray, Ix, Iy} per tile instead of {gray, Ixx, Iyy, Ixy}); the same swap is not made where the
// staged Funcs are stencils of their inputs (blur, unsharp).
TileStaging stencil_tile_staging(const FuncGraph &g, const std::vector<int> &members);

}  // namespace solder::autosched
