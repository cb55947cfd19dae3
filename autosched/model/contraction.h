// Contractions: a reduction at each point over many steps whose operands each skip one of two of
// its dims (a matrix product `A(k, y) * B(x, k)`, attention's scores `q(d, t) * k(d, j)`, a 1 x 1
// convolution `w(c, k) * in(x, y, c)`). Computed over a tile of those two dims at once, each
// operand's load serves a row or a column of the tile (schedules/pointwise/register_tile.h).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "autosched/model/func_graph.h"

namespace solder::autosched {

// The fewest steps per point a contraction takes (at the estimates).
constexpr int64_t kMinContractionSteps = 16;
// The points of each of its two dims a block's tile of a contraction spans
// (schedules/pointwise/register_tile.h: 4 points per thread, 16 threads).
constexpr int64_t kContractionSpan = 64;

// The steps of `M`'s one update (the product of its RVars' extents, at the estimates where an
// extent is known only at run time), or 0 where it has another number of updates or a predicate
// that varies from point to point.
int64_t update_steps(const FuncNode &M);

// Whether `M` is a contraction over its dims `dx` and `dy`: a reduction at each point, of two dims
// or more, with one update over an RDom (no predicate that varies) of kMinContractionSteps steps or
// more at the estimates, every Func or input its update reads at an RVar read without `M`'s var of
// dim `dx` or without its var of dim `dy`, and one read each way (lets looked through). An operand
// that varies with both (`in(x, y, k) * w(k)`) would gain nothing from the points sharing its loads.
bool contraction_over(const FuncNode &M, int dx, int dy);

// The tiles of kContractionSpan x kContractionSpan results over `M`'s dims `dx` and `dy` at the
// estimates, and the points of its other dims (a batch, a filter's taps) beside each.
int64_t contraction_tiles(const FuncNode &M, int dx, int dy);
int64_t points_beside(const FuncNode &M, int dx, int dy);

// Whether `M` is a contraction over some two of its dims with `extent` points or more each at the
// estimates.
bool contraction_somewhere(const FuncNode &M, int64_t extent);

// How `consumer`, a pure Func, reads `producer` where it reads it only at its own point with the
// dims in some order (`prod(x, y) = sum$1(y, x)`: Halide names an inline `sum`'s vars in the order
// its expression meets them): for each of the producer's dims, the consumer's dim its arg is.
// Empty where it reads it otherwise.
std::vector<int> permuted_read(const Halide::Internal::Function &consumer, const std::string &producer);

// Whether `consumer` reads `producer` inside a select's or an if_then_else's branch (a causal
// mask, `select(j <= t, sum$1(t, j), -inf)`): Halide then bounds the producer's region by the
// condition, and a tile's extent is no longer a constant it can prove.
bool read_under_a_condition(const Halide::Internal::Function &consumer, const std::string &producer);

}  // namespace solder::autosched
