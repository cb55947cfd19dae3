// The region a Func spans when the pipeline runs, as Exprs over what the pipeline is given: its
// scalar parameters, its inputs' buffer fields and its outputs' (`out.min.0`, `out.extent.0`).
// FuncGraph evaluates regions at the estimates; a schedule that must stay correct at any size can
// branch on this one instead (Func::specialize): a histogram whose bin count is a parameter keeps
// its bins in shared memory where they fit, and increments them in global memory where not.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "Halide.h"

namespace solder::autosched {

// Per dim of Func `name`, the interval Halide computes it over: the union of what its readers
// need (the outputs' own buffers at the root) and what its updates write, simplified. Nullopt
// where that cannot be told from the definitions: a read at data-dependent points that nothing
// bounds, an extern stage among the readers, bounds the author fixed (Func::bound), or no Func of
// that name.
std::optional<std::vector<Halide::Internal::Interval>>
run_time_region(const std::vector<Halide::Internal::Function> &outputs, const std::string &name);

// Whether the region above holds at most `bytes` bytes of the Func's points (a Tuple's values
// together): a constant true or false where the region's extents are constants, else the
// condition, over what the pipeline is given, under which it does. Undefined where the region
// cannot be told.
Halide::Expr region_fits(const std::vector<Halide::Internal::Function> &outputs, const std::string &name,
                         int64_t bytes);

}  // namespace solder::autosched
