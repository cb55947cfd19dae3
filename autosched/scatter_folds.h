// Keep-the-nearest scatters, computed in parallel with two atomic passes.
//
// A depth buffer written as users write it: each point of an RDom lands at a data-dependent pixel,
// and the pixel keeps the point whose value is strictly better than what it holds, with the
// point's payload: zb(px, py) = Tuple(select(d < zb(px, py)[0], d, zb(px, py)[0]), select(d <
// zb(px, py)[0], r, zb(px, py)[1])). The order of the points decides ties (the first of equal
// depths stays), Halide proves no such update associative, and every auto-scheduler runs it in
// one GPU thread: a million points took 239 ms on an H100.
//
// What the serial walk leaves at a pixel is the pixel's initial Tuple, unless some point landing
// there is strictly better than the initial value; then the best such value's first point in the
// RDom's order (innermost RVar fastest) with its payload. Both are minima, which any order of the
// points gives: the first pass takes, at each pixel, the least order key of the points that beat
// its initial value (a signed 32-bit key ordered as the values are, -0 and +0 one key, NaNs never
// winning as they never win the comparison); the second, the least index in the RDom's order of
// the points whose key is the pixel's least (64 bits: no count of points overflows it). Each is a
// min update Halide proves associative: atomic on the GPU. The Func keeps its initial definition,
// and its update becomes one at its own points, with no RDom: its initial Tuple where no point won,
// else each element's new value at the winning point, its RVars decoded from the index.
//
// Taken for GPU targets: a Func with one update over an RDom without a predicate, writing some
// point other than its pure vars in order (a scatter), no specializations, each of whose values is
// a select on one strict comparison (<, >) of a value against the Func's own element at the
// update's point, keeping that element otherwise; that value of a 32-bit float or an integer type
// of at most 32 bits, no new value and no coordinate reading the Func. The Func changes in place
// (the caller's Funcs share its definition); two Funcs join the pipeline.
#pragma once
#include <string>
#include <vector>

#include "Halide.h"

namespace solder::autosched {

struct ScatterFold {
    std::string func;           // the Func rewritten
    std::string keys, indices;  // the two atomic passes' Funcs
};

// Rewrites every such scatter among the Funcs `outputs` need.
std::vector<ScatterFold> rewrite_scatter_folds(const std::vector<Halide::Func> &outputs);

// The plan's note for a rewritten Func.
std::string scatter_fold_reason(const ScatterFold &f);

}  // namespace solder::autosched
