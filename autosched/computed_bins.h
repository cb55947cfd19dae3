// Scatter bins computed from the RDom's points alone, moved into a Func of their own.
//
// An atomic scatter whose bin is arithmetic over its RVars (a radial profile's ring,
// `rings(clamp(int(sqrt(fx * fx + fy * fy) + 0.5f), 0, 2047)) += ...`; a Hough transform's
// `votes(r.z, round(x * cos(t) + y * sin(t)))`) loses Halide's atomic add: common subexpressions
// (`fx` used twice) give the stored index and the value's load of it lets of their own, the codegen
// no longer sees a load of the store's index plus a delta, and every increment becomes a
// compare-and-swap loop (docs/halide-21-notes.md; radprof's 4K ring sums took 69 ms on the H100).
// Here such an index moves into a pure Func of the RVars it uses (`rings_bin(rx, ry)`), which the
// update calls at its point in its stored args and in its value's read of itself; the generic
// template computes it at the update's point (schedules/generic/generic_schedule.cpp,
// bin_loads_per_point), so that the index is a load on both sides.
//
// Taken for GPU targets: the last update of a Func without specializations that runs atomically
// (autosched/model/generic_reason.h, atomic_update) as a scatter, whose stored args read no Func
// or buffer (nor a pure var of the Func), and of which one at least is more than a bare RVar or
// Var. The bins' region when the pipeline runs is bounded through the new Func
// (autosched/model/run_time_region.h inlines it), as it was through the args. The Func changes in place
// (the caller's Funcs share its definition); one Func joins the pipeline.
#pragma once
#include <string>
#include <vector>

#include "Halide.h"

namespace solder::autosched {

struct ComputedBin {
    std::string func;  // the Func whose update was rewritten
    std::string bins;  // the Func its stored index now calls
};

// Rewrites every such update among the Funcs `outputs` need.
std::vector<ComputedBin> rewrite_computed_bins(const std::vector<Halide::Func> &outputs, const Halide::Target &target);

// The plan's note for a rewritten update.
std::string computed_bin_reason(const ComputedBin &b);

}  // namespace solder::autosched
