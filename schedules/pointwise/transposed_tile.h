// Transposed reads in the pointwise template: a pure root whose neighbouring points (along its
// innermost dim) read a producer down one of the producer's outer dims (`out(x, y) = in(y, x)`, a
// layout change from channels-first to channels-last) loads each warp's 32 values from 32 rows.
// Instead, blocks cover square tiles of the root's innermost dim and the dim that indexes the
// producer's innermost; the producer's tile is loaded into shared memory along its own rows (a
// wrapper, Func::in) and read across them, its rows padded by one element against bank conflicts.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "Halide.h"
#include "autosched/model/func_graph.h"
#include "schedules/writer/schedule_writer.h"

namespace solder {

// Points of a tile along each of its two dims, and the block's threads across them: 32 x 8,
// each thread four points of the tile's second dim.
constexpr int kTransposeTile = 32, kTransposeThreadsY = 8;
// Without the staging (TransposedRead::staged), 16 x 16 tiles of 16 x 4 threads: measured on the
// H100, a 4096 x 4096 f32 matrix's symmetric part took 68.8 us so, 79.0 in 32 x 32 tiles of 32 x 8
// threads (and 77.7 of 32 x 4).
constexpr int kUnstagedTile = 16, kUnstagedThreadsY = 4;
inline int transpose_tile(bool staged) { return staged ? kTransposeTile : kUnstagedTile; }
inline int transpose_threads_y(bool staged) { return staged ? kTransposeThreadsY : kUnstagedThreadsY; }

namespace autosched {

// The producer a root reads transposed, and how.
struct TransposedRead {
    int producer = -1;                 // the graph node (an input or a Func stored by another kernel)
    int root_dim = -1;                 // the root's dim (1 or above) that indexes the producer's innermost dim
    int source_dim = -1;               // the producer's dim (1 or above) that the root's innermost dim indexes
    std::vector<std::string> readers;  // the kernel's Funcs that call it: the root, Funcs inlined into it
    // Whether the producer's tile is staged in shared memory: not where some calls read it in
    // place as well (`(in(x, y) + in(y, x)) / 2`: one copy would span both regions); the square
    // tiles alone then let a block's threads share the sectors of the transposed reads in L1.
    bool staged = true;
};

// The transposed read the pointwise template stages for `root` on a GPU, if any: a pure root (no
// specializations) of two dims or more, at least a tile along its innermost dim and along the
// other one at the estimates, every call of the producer in its definition, with the Funcs of the
// kernel (`members`) inlined, alike: the producer's innermost arg is one root var plus a constant,
// the root's innermost var is in exactly one of its other args, plus a constant of at most 2, and
// no other arg names either (a boundary condition's clamp aside); calls that read it in place (its
// innermost arg the root's innermost var plus a constant) may stand beside those, and the read is
// then not staged. The producer is not computed in
// the kernel, its elements are of 8 bytes or less, and the members that call it are pure, of one
// value, and computed in no other kernel (`only_here`).
std::optional<TransposedRead> transposed_read(const FuncGraph &g, int root, const std::vector<int> &members,
                                              const std::function<bool(int)> &only_here);

}  // namespace autosched

// Lays out `root` in tiles of kTransposeTile x kTransposeTile points over its dims 0 and
// `root_dim`, kTransposeTile x kTransposeThreadsY threads (each computing kTransposeTile /
// kTransposeThreadsY points of dim `root_dim`, unrolled), tails guarded, the other dims as grid
// dims; `source` (the producer's Func) is read through a wrapper computed per block in shared
// memory, laid over the same threads along its dims 0 and `source_dim`, its innermost dim padded
// to kTransposeTile + 1 points.
// `readers`: the Funcs whose calls of `source` read the copy (the root, Funcs inlined into it).
// Without `staged`, the root's tiles only, of kUnstagedTile x kUnstagedTile points over
// kUnstagedTile x kUnstagedThreadsY threads: `source` is read where it is.
void schedule_transposed_tile(ScheduleWriter &w, Halide::Func root, Halide::Func source,
                              const std::vector<Halide::Func> &readers, int root_dim, int source_dim, bool staged);

}  // namespace solder
