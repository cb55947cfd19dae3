// The iteration domain of a reduction, read off its update: a call whose args are exactly the
// reduction's pure vars and RVars, one each, as bare variables (lang's sum(x, {0, 1}) reads
// x(c, r.x, r.y)). Position p of that call is dim p of the domain, pure or reduced. Two
// reductions over the same domain walk the same points in the same order, whatever they keep and
// whatever they reduce, so their split-K partials can be summed in one launch
// (schedules/shared_split_k/shared_split_k.h).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "Halide.h"

namespace solder::autosched {

struct ReductionDomain {
    std::vector<std::string> vars;  // per position, innermost first: the pure var or RVar there
    std::vector<bool> reduced;      // per position: an RVar
    // Per position, for RVars: its index among the update's RVars, and its bounds as written
    // (simplified; constants or expressions of input extents and parameters). -1 and undefined
    // for pure vars.
    std::vector<int> rvar_index;
    std::vector<Halide::Expr> rvar_min, rvar_extent;
};

// Whether the positions two domains both reduce walk the same points at every run-time size: their
// bounds are the same expressions.
bool same_rvar_bounds(const ReductionDomain &a, const ReductionDomain &b);

// nullopt unless `f` has exactly one update, without a predicate, and some call in it names every
// pure var and every RVar once, each as a whole arg. RVar bounds may be known only at run time.
std::optional<ReductionDomain> reduction_domain(const Halide::Internal::Function &f);

// The loop name of each domain position in a shared split-K of `members` cut along position
// `walk`, or nullopt when they cannot agree: compute_with matches fused loops by name, so the walk's
// RVar must have one name in all, as must a position several members keep; a position a member
// reduces (besides the walk) becomes a pure dim of its partials under the name the others keep it
// by (or a fresh one), which must not be a name it already uses. Position 0 must be kept by all.
std::optional<std::vector<std::string>> shared_position_names(const std::vector<ReductionDomain> &members, int walk);

}  // namespace solder::autosched
