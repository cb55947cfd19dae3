// What a pointwise kernel reads, which decides its layout (schedules/pointwise/pointwise.cpp's
// fill step): gathers from large tables and scattered gathers, f16 values, reductions fused per
// point whose threads walk rows of their own, reads at constant points of a small dim or across
// it, and the snug tile of rows shorter than a block.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "Halide.h"
#include "autosched/model/func_graph.h"

namespace solder::autosched {

// Whether any value `f` loads, computes or stores is an f16 (its outputs' types included). Not
// bf16: on GPU targets its operations are integer and f32 ones (autosched/bf16_on_gpu.h), and its
// vectors load and store whole.
bool has_f16_values(const Halide::Internal::Function &f);

// Whether the kernel's root or a Func computed in it loads, computes or stores f16 values. Halide
// 21's PTX backend loads and stores a vector of f16 one 2-byte element at a time (and drops a
// vector's conversion to f16: apply_plan leaves those unvectorized), so a vector only spreads a
// warp's accesses over more bytes: such a kernel takes one point per thread in 2-D tiles.
bool f16_tiles(const FuncGraph &g, int root, const std::vector<int> &members);

// Points of the next dim each thread of a gathering kernel computes (PointwiseParams::unroll_rows).
constexpr int kGatherRows = 4;

// Whether the kernel gathers from a large table: its root or a Func fused into it reads one at an
// index it loads first (a table row named by a token). One point per thread then has one load in
// flight at a time, the index and then what it names.
bool gathers(const FuncGraph &g, int root, const std::vector<int> &members);

// Whether the kernel's root or a Func fused into it reads some producer at 4 or more scattered
// points per point (bilateral guided upsampling's slice: 8 corners of a grid cell picked by
// the pixel's luminance). A vector's lanes then each load alone, guarded where the sizes are known
// only at run time, and its neighbours' cells are far apart along one row: measured on the H100,
// bgu's slice took 423 us in x4 vectors along rows, 156 us one point per thread in 32 x 8 tiles.
bool gathers_scattered(const FuncGraph &g, int root, const std::vector<int> &members);

// Threads of a one-point-per-thread tile (PointwiseParams) over innermost extents `e0` x `e1` that
// leaves the fewest lanes idle: of tiles of 64 to 256 threads, at least 8 wide, the one whose
// tiles cover the extents with the least waste (ties: more threads, then wider). Where a row is
// shorter than a block of 256, most of the block's lanes would have no point: bgu's normal
// equations, 40 cells wide, ran 40 of each 64 lanes busy.
std::pair<int, int> snug_tile(int64_t e0, int64_t e1);

// Whether each thread of a reduction fused per point walks rows of its own: some update of `M`
// reads a producer whose innermost arg moves with an RVar and not with M's innermost var (an
// arg-max along each row of logits, `in(r, y)`), and none reads one along M's innermost var. A
// warp's loads then touch 32 rows, not one: nothing is shared among a block's threads, and
// blocks of fewer threads spread the walks over more SMs.
bool walks_own_rows(const FuncNode &M);

// The dim of a pure vectorized root whose points each thread computes together, unrolled
// (PointwiseParams::unroll_dim), -1 none: the outermost dim from 2 up with 2 to 4 points at the
// estimates, where the root or a Func inlined into it reads some Func at several constant points
// of a dim, or the root reads one across the dim (a gain `g(x, y)` read by every channel). The
// values those reads feed, or load, are the same for each point of the dim (an HSV conversion of
// the pixel, from which each output channel takes its part): unrolled, the compiler computes them
// once. At sizes known only at run time the root must be a pipeline output, whose buffer's
// extent the branch's condition names.
int unrolled_points_dim(const FuncGraph &g, int root, const std::vector<int> &members);

// The dim of a pipeline output whose buffer the pipeline declares innermost in memory, 2 or above
// (`output_buffer().dim(d).set_stride(1)`: an interleaved RGBA image's channels), with 2 to 4 points
// at the estimates; -1 none.
int memory_inner_dim(const FuncNode &O);

// Whether each thread of a vectorized pure root has a long chain of work that does not vary across
// its tile's dims 0 and 1, beside what it loads and stores per point: math costing tens of
// instructions (a float division, a square root, a sine; an integer division by a value that is
// not a constant) on values the kernel loads or finds from the root's other vars. A group
// normalization's output finds each channel's group (`c / cpg`), loads its statistics and takes
// `1 / sqrt(var + eps)`; one 16-byte vector per thread then leaves too few bytes in flight for the
// time each thread spends before its store. The Funcs fused into the root are pure (inlined).
bool invariant_chain(const FuncGraph &g, int root, const std::vector<int> &members);
// Points of the next dim each thread of such a kernel computes (PointwiseParams::unroll_rows).
// Measured on the H200, group_norm's output kernel took 84 us with one row per thread, 63.8 with
// 2, 63.4 with 4.
constexpr int kInvariantChainRows = 2;

// The dim of a pure root, above the innermost, along which the kernel's costly math (sines,
// exponentials, powers) does not vary, for each thread to walk (PointwiseParams::serial_dim), -1
// none: rotary embeddings' angle of a token and channel, the same for each of its heads. Walked in
// the thread, that math is computed once for all the dim's points. The dim has 2 to
// kInvariantMathPoints points at the estimates, the other points fill `min_threads` threads, and
// the math that does not vary along it is at least as much as the math that does. The Funcs fused
// into the root are pure (inlined).
int invariant_math_dim(const FuncGraph &g, int root, const std::vector<int> &members, int64_t min_threads);
constexpr int64_t kInvariantMathPoints = 64;
// Points of that walk unrolled (PointwiseParams::serial_unroll).
constexpr int kInvariantMathUnroll = 8;

}  // namespace solder::autosched
