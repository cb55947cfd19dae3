// Sums of squared deviations from a mean of the same points, computed with the mean in one pass.
//
// A variance as Halide users write it reduces the points twice: `mean(g) = sum(e(r)) / n`, then
// `var(g) = sum((e(r) - mean(g))^2) / n`. The second sum waits for the first, so every schedule
// reads the points twice (a group normalization's 128 KB groups: once for each sum, from DRAM).
//
// Both sums are rewritten in chunks along the RDom's second RVar (so that the chunks' threads run
// along the first, reading neighbours): the RVar whole, or, where it has more than
// kMaxChunkPoints points at the estimates (a whole image's variance), chunks of a power of two of
// them, the longest that still make kSplitChunks chunks, the last chunk partial where the extent is
// no multiple (its points past the end add nothing). Such chunks also keep their first point as a
// third value: loaded again by the merge, one point every chunk length, the planner would price
// that load's footprint as the whole input. One Tuple Func walks each chunk once: with d each point's
// difference from the chunk's first point f (k points), it sums d and d^2. Then
//   mean's sum = sum over chunks of (sum(d) + k f),
//   the deviations' sum = sum over chunks of (sum(d^2) - sum(d)^2 / k) + k (chunk mean - m)^2,
// where m is whatever the deviations were taken from. The first term is the chunk's squared
// deviations from its own mean (the shifted-data form), the second Chan, Golub and LeVeque's merge,
// an identity for any m: the result is the pipeline's sum up to rounding. The shift is one of the
// chunk's own points, so the cancellation in the first term costs at most about k + 1 units of
// rounding relative to the chunk's deviations (at most kMaxChunkPoints at the estimates).
//
// Measured on the H100 (bench/RESULTS.md): group_norm 206.4 -> 178.3 us, a user's batch norm
// 167.3 -> 137.7 us, the statistics read once instead of twice. The same sums walked twice per
// chunk from the chunk's own mean (no shift) ran the chunk kernel at 42% of the bandwidth ceiling
// under the generic template, slower than the two passes.
//
// Taken for GPU targets (PlannerOptions::one_pass_deviations), for a Func F of one 32- or 64-bit
// float value (in float16 the shift's rounding bound is too loose), zero at first, with one update
// at its pure vars in order, no predicate, no specializations, over an RDom of at least two RVars
// whose second one has at least kMinChunkPoints points at the estimates,
// kMinPointsPerResult points in all, and kMinChunks chunks over F's points: F(P) += d * d with
// d = e - m (or m - e), e naming RVars and m none. Another Func S over the same RVars and pure vars,
// zero at first, must sum e itself (S(P) += e), and m must read S (directly or through other
// Funcs): then both change in place (the callers' Funcs share their definitions), and the chunk
// Func joins the pipeline, over the other RVars and F's pure vars.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "Halide.h"
#include "autosched/at_estimates.h"

namespace solder::autosched {

struct DeviationSum {
    std::string deviations, sum;  // F and S
    std::string chunks;           // each chunk's sum and squared deviations (a Tuple)
    int64_t split = 0;            // points per chunk where the RVar is split; 0: the RVar whole
};

// Points per chunk (at the estimates) the rewrite takes: below, the chunk Func would store about as
// many values as the points it sums; above, the shift's rounding bound grows (a longer RVar is
// split into chunks of at most this many).
constexpr int64_t kMinChunkPoints = 16, kMaxChunkPoints = 256;
// Chunks over all of F's points (at the estimates) below which it is not taken: a thread each
// would leave the GPU idle.
constexpr int64_t kMinChunks = 131072;
// A RVar longer than kMaxChunkPoints is split into the longest chunks that still make this many:
// image_stats' 4096 x 4096 variance in chunks of 64 rows (262144 chunks) took 99.2 us on the H100,
// in chunks of 128 rows (131072, their sums split-K in 4 launches) 109.0.
constexpr int64_t kSplitChunks = 262144;
// Points each result sums (at the estimates) below which it is not taken: a block holds them on
// chip, and a plan that computes both sums in their reader's blocks reads them from DRAM once
// already (a user's 16 x 16 tile statistics: 83.4 us so, 174.9 us rewritten, on the H100).
constexpr int64_t kMinPointsPerResult = 16384;

// Rewrites every such pair among the Funcs `outputs` need.
std::vector<DeviationSum> rewrite_deviation_sums(const std::vector<Halide::Func> &outputs,
                                                 const AtEstimates &estimates);

// The plan's note for a rewritten pair.
std::string deviation_sum_reason(const DeviationSum &d);

}  // namespace solder::autosched
