// Sums of squared deviations from a mean of the same points, computed with the mean in one pass.
//
// A variance as Halide users write it reduces the points twice: `mean(g) = sum(e(r)) / n`, then
// `var(g) = sum((e(r) - mean(g))^2) / n`. The second sum waits for the first, so every schedule
// reads the points twice (a group normalization's 128 KB groups: once for each sum, from DRAM).
//
// Both sums are rewritten in chunks along the RDom's second RVar (so that the chunks' threads run
// along the first, reading neighbours): one Tuple Func takes each chunk's sum `s` and then its own
// squared deviations `q = sum((e - s / k)^2)`, k points, two walks in one kernel, the second finding
// the chunk on chip; then
//   mean's sum = sum over chunks of s,
//   the deviations' sum = sum over chunks of q + k (s / k - m)^2,
// where m is whatever the deviations were taken from. The second line is an identity for any m
// (a chunk's deviations from its own mean sum to zero), so the result is the pipeline's sum up to
// rounding; taken from the chunk's mean, each chunk's squares stay as well conditioned as the
// two-pass form's (Chan, Golub and LeVeque's pairwise update).
//
// Off by default (PlannerOptions::one_pass_deviations): on the H100 the chunk kernel, a thread per
// chunk under the generic template, ran at 42% of the bandwidth ceiling, and the planner computed
// the merge per block of the consumer's kernel; group_norm and image_stats were slower than with
// their two passes (bench/RESULTS.md). A template for the chunk Func (a block per run of chunks,
// both walks coalesced) is what it waits for.
//
// Taken for a Func F of one float value, zero at first, with one update at its pure vars in order,
// no predicate, no specializations, over an RDom of at least two RVars whose second one has at
// least kMinChunkPoints points at the estimates: F(P) += d * d with d = e - m (or m - e), e naming
// RVars and m none. Another Func S over the same RVars and pure vars, zero at first, must sum e
// itself (S(P) += e), and m must read S (directly or through other Funcs): then both change in
// place (the callers' Funcs share their definitions), and the chunk Func joins the pipeline, over
// the other RVars and F's pure vars.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "Halide.h"

namespace solder::autosched {

struct DeviationSum {
    std::string deviations, sum;  // F and S
    std::string chunks;           // each chunk's sum and squared deviations (a Tuple)
};

// Points per chunk below which the rewrite is not taken (the chunk Func would store about as many
// values as the points it sums).
constexpr int64_t kMinChunkPoints = 16;

// Rewrites every such pair among the Funcs `outputs` need. `extent_at_estimates` gives an RVar
// extent's value at the estimates, or a negative number where it is not known.
std::vector<DeviationSum>
rewrite_deviation_sums(const std::vector<Halide::Func> &outputs,
                       const std::function<int64_t(const Halide::Expr &)> &extent_at_estimates);

// The plan's note for a rewritten pair.
std::string deviation_sum_reason(const DeviationSum &d);

}  // namespace solder::autosched
