// A small reduction several pipeline outputs read point for point, copied for each of them.
//
// Users write a value and where it came from as two outputs of one reduction: 2 x 2 max pooling
// with each maximum's position, `am(x, y) = argmax(...)`, `pooled(x, y) = am(x, y)[2]`,
// `where(x, y) = am(x, y)[0] + 2 * am(x, y)[1]`; the nearest palette entry and its distance. Halide
// computes a Func at one place, so the planner stores a reduction that two kernels read (a kernel
// of its own, its values written and read back), where each output's kernel could compute it at
// each of its points for a few steps' arithmetic.
//
// So, for GPU targets (PlannerOptions::cloned_reductions), before planning, each such reduction is
// copied for every output but the first that reads it: the outputs then read reductions of their
// own, which the planner fuses into their kernels (or stores, as any other). A reduction `r` is
// copied where
//   - it is no output and its author did not store it; it has no wrappers, bounds, specializations
//     or predicates; each of its updates writes its pure vars in order (no scatter), over RDoms of
//     at most kMaxClonedSteps points in all at the estimates;
//   - the Funcs that call it are two or more pipeline outputs, or one pure Func (no output) that two
//     or more outputs call (then that Func is copied with it);
//   - each of those calls is at the caller's pure vars in order (point for point), and each caller
//     is pure, without specializations.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "Halide.h"
#include "autosched/at_estimates.h"

namespace solder::autosched {

// Steps of all of a copied reduction's updates per point, at the estimates: an arg-max over a
// 2 x 2 window is 4, a palette of 16 entries 16.
constexpr int64_t kMaxClonedSteps = 64;

struct ClonedReduction {
    std::string reduction;  // the Func copied
    std::string through;    // the pure Func between it and the outputs, copied with it ("" if none)
    // Each output given a copy (the first output keeps the original): the Func it called and the
    // copy it calls instead.
    struct Call {
        Halide::Internal::Function caller, original, copy;
    };
    std::vector<Call> calls;
};

// Rewrites every such reduction among the Funcs `outputs` need; `kept` names Funcs their author
// stored.
std::vector<ClonedReduction> clone_shared_small_reductions(const std::vector<Halide::Func> &outputs,
                                                           const AtEstimates &estimates,
                                                           const std::set<std::string> &kept = {});

// Makes the outputs call the originals again (undo), or the copies (redo): the pipeline is planned
// both ways, and the plan the cost model expects faster kept.
void undo_cloned_reductions(const std::vector<ClonedReduction> &cloned);
void redo_cloned_reductions(const std::vector<ClonedReduction> &cloned);

// The plan's note for a copied reduction; `dropped`: the costs with and without the copies, where
// the plan without them was kept.
std::string cloned_reduction_reason(const ClonedReduction &c, const std::string &dropped = "");

}  // namespace solder::autosched
