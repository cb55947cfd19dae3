// Reductions over the same points that read a common input, walked together as one Tuple Func.
//
// A backward pass as users write it sums several things over the same RDom: a layer norm's weight
// and bias gradients, `dgamma(c) = sum(dy(c, r) * xhat(c, r))` and `dbeta(c) = sum(dy(c, r))`.
// Planned apart, each is a kernel of its own (or split-K launches of its own) that reads the
// shared input again: dy's 134 MB twice for layernorm_bwd. Solder's shared split-K launches
// (schedules/shared_split_k) walk such sums together only over RDoms of constant bounds: at run-time
// bounds each member's walk is guarded at every step, which cost more than the bytes it saved.
//
// So, for GPU targets (PlannerOptions::sibling_reductions), such a group is rewritten before
// planning into one Func with a value per member: its pure definition the members' initial values,
// its one update each member's own (`+`, `max` or `min` of what it adds), in one walk over the
// RDom. Every call to a member, in every Func of the pipeline, then reads its value of the Tuple,
// and the members leave the pipeline. Halide sees one reduction, whose walk is guarded (or
// partitioned) once for all of its values.
//
// Members: Funcs of one value, not outputs, not stored by their author (`kept`: compute_root()
// written before auto-scheduling), with no bounds, wrappers, specializations or predicate;
// a pure definition that calls nothing; one update at its pure vars in order whose value is
// `op(f(pure), e)`, e naming RVars and not f. Members share their pure vars and their RDoms' bounds
// (one RDom, or RDoms written alike: the others' RVars are renamed as the first's), none reads another (directly or through other Funcs), no
// extern stage reads one, and each shares a load with another member (a call to the same Func or
// input at the same args): without one there is nothing to read once.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "Halide.h"

namespace solder::autosched {

struct SiblingGroup {
    std::vector<std::string> members;  // in the Tuple's order
    std::string walked;                // the Tuple Func
};

// Rewrites every such group among the Funcs `outputs` need; a group has two members or more.
std::vector<SiblingGroup> rewrite_sibling_reductions(const std::vector<Halide::Func> &outputs,
                                                     const std::set<std::string> &kept = {});

// The plan's note for a rewritten group.
std::string sibling_group_reason(const SiblingGroup &g);

}  // namespace solder::autosched
