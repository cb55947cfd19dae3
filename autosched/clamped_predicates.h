// Loads in an RDom's predicate (RDom::where) clamped to what the RDom reads. Halide evaluates a
// predicate beside the guard it adds where a schedule splits an RVar with GuardWithIf (a chunk of
// rows, an unrolled walk, a fused walk in blocks of 256), and its bounds inference takes the
// predicate's loads at every step of the rounded-up loop: a histogram of the pixels above a
// threshold, `r.where(in(r.x, r.y) > t)`, split by 8 rows, failed at run time on an image of 19
// rows ("Input buffer in is accessed at 23, which is beyond the max (18)"). Each index of such a
// load that an RVar varies is clamped to its bounds over the RDom: the same value at every point
// the RDom visits, and in bounds at the guarded steps past its end.
#pragma once
#include <string>
#include <vector>

#include "Halide.h"

namespace solder::autosched {

// Clamps the indices of every load (a Func's or an input's) in the update predicates of the Funcs
// `outputs` need, where an RVar varies the index and its bounds over the RDom are known; returns
// the Funcs whose predicates changed.
std::vector<std::string> clamp_predicate_loads(const std::vector<Halide::Func> &outputs);

// The plan's note for such a Func.
std::string clamped_predicate_reason();

}  // namespace solder::autosched
