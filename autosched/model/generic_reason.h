// Which Funcs the fused templates cannot take, and why. Such a Func takes the generic template
// (schedules/generic/generic_schedule.h): a kernel of its own, correct for any definition Halide accepts. The
// reason is data: the plan prints it beside the Func.
#pragma once
#include <string>
#include <vector>

#include "Halide.h"

namespace solder::autosched {

// Empty when the fused templates can take `f`, else one sentence on why not. The fused templates
// take Funcs with a pure definition and at most one update that writes the pure vars in order and
// reduces with an operator Halide proves associative, over an RDom without a predicate, or with one
// the same at every point (pipeline_funcs.h: uniform_predicate, a disk of a Param radius); its
// bounds may be known only at run time: every split of such a pipeline guards its tail.
std::string generic_reason(const Halide::Internal::Function &f);
// The clause generic_reason adds for an arg-reduction as Halide's inline argmax writes it: the form
// Halide's prover knows (the plan drops it where Solder cut the fold: autosched/ordered_folds.h).
extern const char *const kProvableArgMaxHint;

// Whether `f`'s first update is a reduction of the fused templates' shape (generic_reason would
// be empty with it alone) and every later one rewrites each point in place from that point, with
// no RDom (`norm(y) += in(r, y) * in(r, y); norm(y) = sqrt(norm(y)); norm(y) = norm(y) + bias`):
// the block reduction template takes it as a kernel root, the later updates a launch each.
bool reduction_then_refinements(const Halide::Internal::Function &f);

// Whether `f` is a reduction with a predicate (RDom::where) and otherwise of the fused templates'
// shape: one update over an RDom that writes the pure vars in order with an operator Halide proves
// associative. Generic where the predicate differs from point to point; either way the block and
// total reduction templates take such a reduction as a kernel root: Halide's rfactor keeps the
// predicate in each lane's walk, a guard at each point (a causal row sum, a masked mean).
bool predicated_reduction(const Halide::Internal::Function &f);

// Whether `f` reduces at each of its points on its own: every update writes its pure vars in order
// (reading `f` only at that point, as Halide requires) and some update has an RDom. Such a Func,
// generic for a reason the fused templates have (several updates, an RDom::where predicate, an
// operator Halide cannot prove associative), is still computed correctly per point in the thread of
// a consumer that reads it one to one: nothing splits its RDom there (the pointwise template).
bool reduces_per_point(const Halide::Internal::Function &f);

// Whether every update of `f` rewrites each point in place from that point alone, with no RDom
// (`f(x, y) = select(mask(x, y), clamp(f(x, y), lo, hi), f(x, y))`): like a reduction at each point,
// it may be computed in the threads of a reader instead of stored.
bool refined_in_place(const Halide::Internal::Function &f);

// Whether every update of `f` is a scan at each point of its pure dims (a "point scan"): each
// update writes its pure vars in their places, except in positions indexed by RDom and constant
// expressions only (the scan's positions), dims 0 and 1 among the pure ones; Halide then has it
// read `f` only at its own point in the pure positions (`vert(x, y, c, rt) = max(vert(x, y, c,
// rt - 1), ...)`: a column window grown one step at a time, for each pixel). Such a Func's points are
// independent of each other across the pure dims: any region of them may be computed apart (per
// tile, each thread walking its own points' scans in order): the generic template computes it per
// tile of a copy (schedules/generic/generic_schedule.h).
bool point_scan(const Halide::Internal::Function &f);
// A point scan's scan dims: those some update writes at an RDom's point, not its pure var.
std::vector<int> point_scan_dims(const Halide::Internal::Function &f);

// Whether every point of update `u`'s RDom writes a point of `f` of its own, so that the points may
// run at once, in any order, with no atomics (Stage::allow_race_conditions): the update reads `f`
// nowhere but at the point it stores (in its values; an in-place update of a region, `out(r.x,
// r.y) = out(r.x, r.y) * gain`), writes its pure vars, if any, in their places, and each RVar `r`
// has an arg `s * r + e` with `s` a constant and every value `e` takes (through loads, clamps and
// the other RVars at their bounds) within a span narrower than `|s|`. Two points that differ in `r`
// then write different values of that arg. (Max-unpooling's `out(2 * r.x + o % 2, 2 * r.y + o / 2,
// r.z) = pooled(r.x, r.y, r.z)`, `o` a clamped index: 0 <= o % 2 <= 1 < 2.)
bool distinct_points_update(const Halide::Internal::Function &f, int u);

// Whether update `u` of `f` may run its innermost RVar's steps at once, one step of its outer
// RVars at a time (a launch each): two points that differ in that RVar or in the pure vars, at the
// same outer step, never write one point, and neither reads what the other writes (a column's
// maxima over power-of-two windows, `vmax(x, s.x, c, s.y) = max(vmax(x, s.x, c, s.y - 1),
// vmax(x, s.x + 2^(s.y - 1), c, s.y - 1))`: each step of s.y reads only the one before). Halide's own
// check (can_parallelize_rvar) lets the outer RVars differ too, and cannot prove it. Two RVars or
// more, no predicate, args and values with no loads of `f` inside the args.
bool innermost_rvar_parallel_per_step(const Halide::Internal::Function &f, int u);

// Whether the points of update `u` of `f` along its innermost RVar are independent walks: two
// points that differ in that RVar, at any steps of the outer RVars, never write one point, and
// neither reads what the other writes (a recursive filter down each column written over an RDom of
// both dims, `f(r.x, r.y) = f(r.x, r.y - 1) * a + in(r.x, r.y)`). Each may then walk its outer
// RVars in a thread of its own. The same conditions as innermost_rvar_parallel_per_step otherwise.
bool innermost_rvar_independent(const Halide::Internal::Function &f, int u);

// Whether update `u` of `f` runs on all its RDom's points at once on `target`'s GPU: with atomics
// (atomic_update), or with none where its points write points of their own (distinct_points_update).
bool all_points_at_once(const Halide::Internal::Function &f, int u, const Halide::Target &target);

// Whether Halide can run update `u` of `f` on all its RDom's points at once with atomic
// read-modify-writes (Stage::atomic): an associative and commutative update whose types the
// target's atomics cover (a Tuple's elements each updated on its own, reading no other element).
bool atomic_update(const Halide::Internal::Function &f, int u, const Halide::Target &target);

// Whether update `u` of `f` writes some point other than a pure var as it is: a scatter (a
// histogram's bin, `hist(in(r.x, r.y, c), c)`) or a shifted store.
bool scatter_update(const Halide::Internal::Function &f, int u);

// Whether the generic template may run update `u` on a GPU as a scatter in chunks of rows, or of
// points of a 1-D RDom (schedules/generic/generic_schedule.h): a scatter (scatter_update) into a
// Func of one dim or more, adding a 32-bit integer or float associatively and commutatively (a histogram,
// a group-by sum). Pure vars it writes as they are (a histogram per channel) loop in each chunk.
// (Float bins in shared memory only where the target's atomics take floats: CUDA's, not
// OpenCL's, on which no chunk keeps bins in shared memory anyway.)
bool chunked_scatter(const Halide::Internal::Function &f, int u);

}  // namespace solder::autosched
