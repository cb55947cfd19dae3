// The block reduction template (schedules/template.h): its choose, fill and apply steps.
#pragma once
#include <vector>
#include "schedules/template.h"

namespace solder::autosched {

// How the update of a reduction reads other Funcs and inputs along their innermost dim:
// - `walks_rvar`: some read's innermost arg uses the innermost RVar (a row sum, in(r, y)): the
//   block's lanes read neighbouring elements. A reduction down the columns (in(x, r)) reads
//   coalesced with one thread per result instead, which the pointwise template does.
// - `along_results`: some read's innermost arg follows the result's innermost pure var and no RVar
//   (B(i, k) in C(i, j) += A(k, j) * B(i, k)): one thread per result reads it coalesced, while a
//   block's lanes along the RVar would read it a row apart each.
// - `shared_along_results`: no read's args name the result's innermost pure var (it appears at
//   most in the RDom's predicate: a cumulative sum written as `r.where(r <= x)`): neighbouring
//   results read the same points, which a warp of threads, one per result, loads once.
// - `walks_rvar_beside_results`: some read's innermost arg is the result's innermost pure var
//   and its next arg uses the innermost RVar (each channel of an interleaved image along its rows,
//   in(c, r, y)): where the results' innermost dim has a few points, a block's lanes read
//   neighbouring pixels.
// - `strided_along_results`: some read's innermost arg follows the result's innermost pure var
//   and no RVar while an outer arg uses one (x(c, r) in a column sum): each point of a result's
//   walk is a row apart.
// - `slides_along_results`: some read's innermost arg uses both the result's innermost pure var
//   and an RVar (a window sliding along the results: a convolution).
struct InnermostReads {
    bool walks_rvar = false, along_results = false, shared_along_results = true, walks_rvar_beside_results = false,
         slides_along_results = false, strided_along_results = false;
};
// For a reduction with pure dims and one update.
// `inlined`: pure Funcs inlined into its update (a kernel's members), whose reads are looked at
// through their definitions, innermost caller first.
InnermostReads innermost_reads(const Halide::Internal::Function &f,
                               const std::vector<Halide::Internal::Function> &inlined = {});

// A block reduction's lanes for a result of `points` points reduced by `update`, over RVars of
// `extents` at the estimates (innermost first): BlockReductionParams::lanes and, where several
// RVars would be fused into one walk at run-time extents, the 2-D lanes (lanes_x, unroll_inner).
// The block reduction template's own results, and each slice of a total reduction.
BlockReductionParams block_reduction_params(const Halide::Internal::Definition &update,
                                            const std::vector<int64_t> &extents, int64_t points);
// The threads and shared memory of the launch of a block reduction's update: both levels of
// partials in shared memory.
void set_block_reduction_threads(const BlockReductionParams &p, int elem_bytes, LaunchShape &s);

const KernelTemplate &block_reduction_template();

}  // namespace solder::autosched
