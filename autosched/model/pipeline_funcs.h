// Walks a pipeline's Funcs: every Function reachable from the outputs, producers first, leaving out
// the wrappers Halide makes for ImageParams (name_im: the input itself, never scheduled).
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "Halide.h"

namespace solder {

bool is_input_wrapper(const Halide::Internal::Function &f);
// A field of a buffer parameter (an input's or an output's), `field` "min", "extent" or "stride"
// of dim `dim`, as the Variable Halide names it (`in.extent.0`).
Halide::Expr buffer_field(const Halide::Parameter &p, const std::string &field, int dim);
// The specializations (Func::specialize) each stage of `f` has, the pure definition's first: all
// zero where it has none.
std::vector<size_t> specialization_counts(const Halide::Internal::Function &f);
bool has_specializations(const Halide::Internal::Function &f);
// Whether a definition's RDom has a predicate (RDom::where) other than `true`.
bool has_predicate(const Halide::Internal::Definition &d);

// Whether the predicate of `d` calls a floating-point function undefined over part of the reals
// (sqrt, log, pow, asin, acos, acosh, atanh). Halide's rfactor keeps, on the stage that merges the
// intermediate's slices, the predicate relaxed over the RVars the intermediate took
// (or_condition_over_domain: their bounds substituted), and such a call of a bound can be NaN where
// every point's is not (a square root of (x - cx)^2 + (y - cy)^2 whose interval lower bound is
// negative): the comparison is then false and the merge skips slices that hold points. No rfactor
// is taken over such a predicate.
bool predicate_not_relaxable(const Halide::Internal::Definition &d);
// The Funcs (not inputs) that update `u` of `f` calls in the args it stores to (a scatter's bin).
std::vector<std::string> funcs_in_stored_index(const Halide::Internal::Function &f, int u);
// Whether update `d` of `f` has a predicate that loads (a Func or an input) at an index that
// names one of `f`'s pure vars: a CSR segment's `r < off(i + 1) - off(i)`. Where the RVar loop is
// innermost, Halide lifts such a predicate into its extent and bounds the load over every point of
// a split of that var, its guarded tail included, so a split asks for `off` beyond its last
// segment: the var stays unsplit, or two points of it loop inside the RVar's walk.
bool predicate_loads_at_pure_vars(const Halide::Internal::Function &f, const Halide::Internal::Definition &d);
// Whether such a predicate loads a Func (not an input) at them: a masked row sum over a computed
// stage, `r.where(stage(r, y) > t)`. Halide bounds that load over a split's guarded tail even
// where each point is guarded inside the walk, and a stage that is a pipeline output (or reads
// one) cannot be asked for rows past its buffer: such a var is not split at all.
bool predicate_loads_func_at_pure_vars(const Halide::Internal::Function &f, const Halide::Internal::Definition &d);
// The pure vars of `f` at which such a predicate of update `d` loads (empty: none).
std::set<std::string> pure_vars_predicate_loads_at(const Halide::Internal::Function &f,
                                                   const Halide::Internal::Definition &d);
// Whether a definition's predicate is the same at every point of its pure vars: it names only the
// RDom's own vars and scalar parameters (a disk, `r.x * r.x + r.y * r.y <= radius * radius`), no
// pure var and no Func or input. Every thread then skips the same points.
bool uniform_predicate(const Halide::Internal::Definition &d);
// Whether a definition has a predicate that varies from point to point (has_predicate, not
// uniform_predicate): a triangle `r <= x`, a mask loaded from a Func.
bool varying_predicate(const Halide::Internal::Definition &d);
std::vector<Halide::Internal::Function> pipeline_functions(const std::vector<Halide::Func> &outputs);
// The input buffers (ImageParams, generator Inputs) the pipeline of `outputs` reads, by name.
std::map<std::string, Halide::Parameter> pipeline_input_buffers(const std::vector<Halide::Func> &outputs);
// A Func's pure vars, innermost first.
std::vector<Halide::Var> pure_vars(const Halide::Func &f);
// Pure Vars of a stage: the pure definition's args, or the update's LHS args that are plain Vars.
std::vector<Halide::VarOrRVar> stage_pure_vars(const Halide::Internal::Function &f, int stage);
// A locked copy of a LoopLevel, the schedule's own left as it is: schedules hold their LoopLevels
// unlocked until lowering, and an unlocked one refuses queries. (Halide throws where the LoopLevel
// was never set.)
Halide::LoopLevel locked_copy(const Halide::LoopLevel &level);
// Funcs computed at root (outputs included) after scheduling: each is one loop nest on the host,
// and at least one kernel on a GPU target.
bool is_computed_at_root(const Halide::Internal::Function &f);
// Whether `f` is computed at the points of its own copy (Func::in, the copy at root: a point scan
// per tile, a reduction in each thread's registers): it is then stored as that copy.
bool is_computed_at_own_copy(const Halide::Internal::Function &f);
int count_root_stages(const std::vector<Halide::Func> &outputs);
bool is_gpu_target(const Halide::Target &t);
namespace autosched {
struct PlannerOptions;
// Sets the options a plan for `t` takes from its target: `gpu`, `shared_atomics`,
// `float_atomics`.
void plan_for_target(PlannerOptions &opt, const Halide::Target &t);
// Turns off, whatever the caller set, what `t` cannot have: OpenCL has neither shared-memory
// atomics Halide 21 can be trusted with nor float atomics (autoschedule applies it).
void limit_to_target(PlannerOptions &opt, const Halide::Target &t);
}  // namespace autosched
// The names of the Funcs `f` calls directly: an extern stage's Func arguments (Halide's
// find_direct_calls also names the Funcs those call, through the extern's proxy definition).
std::set<std::string> direct_callees(const Halide::Internal::Function &f);
// Whether a definition of `f` calls `producer` at an index holding a min, a max or a select of two
// values that are not constants (a boundary condition's clamp to the input's run-time extent):
// Halide bounds such an index by interval arithmetic, loosely.
bool reads_at_clamped_index(const Halide::Internal::Function &f, const std::string &producer);
// Whether any value `f` computes or loads, in any definition, is of a type `pred` takes (its
// outputs' types included; handles never).
bool has_value_of_type(const Halide::Internal::Function &f, const std::function<bool(const Halide::Type &)> &pred);
// Whether `e` names an RVar (a reduction domain's variable).
bool uses_rvar(const Halide::Expr &e);
// Whether `e` calls the Func named `name`.
bool calls_func(const Halide::Expr &e, const std::string &name);
// Whether `e` reads any Func or buffer (a Halide call or an image call).
bool reads_func_or_buffer(const Halide::Expr &e);
// Whether `e` is `f`'s own element `index` at `at`: f(at)[index], each arg equal to at's.
bool own_element_at(const Halide::Expr &e, const Halide::Internal::Function &f, int index,
                    const std::vector<Halide::Expr> &at);
// `name` with every '$' (Halide's RVar "r$x", a uniquified "sum$1") made '_'.
std::string without_dollars(std::string name);
// `e` with its calls to the Func named `from` made calls to `to`, at the same args and value index.
Halide::Expr calls_retargeted(const Halide::Expr &e, const std::string &from, const Halide::Internal::Function &to);
// A Func of one value folding what it adds over an RDom, as the inline `sum`, `maximum` and
// `minimum` write it: `f(pure) = init; f(pure) = op(f(pure), added)` (either side), init a constant,
// op `+`, `max` or `min`, one update at its pure vars in order over an RDom without a predicate, no
// specializations, not an extern stage, `added` naming RVars and not f; its lets substituted.
struct FoldedUpdate {
    enum class Op { Add, Max, Min } op;
    Halide::Expr init, added;
};
std::optional<FoldedUpdate> folded_update(const Halide::Internal::Function &f);
// Whether `a` and `b` have the same pure vars and their first updates the same RVars (names, mins
// and extents, in order): one RDom over the same points.
bool same_first_update_domain(const Halide::Internal::Function &a, const Halide::Internal::Function &b);
// Whether definition `u` of `f` writes its pure vars in order, each as it is (`f(x, y) = ...`).
bool writes_pure_vars_in_order(const Halide::Internal::Function &f, const Halide::Internal::Definition &u);
// Whether `e` itself loads: a call to a Func or an image, or a Load. The lets it names are not
// followed (a value loaded into a let and used by name does not count).
bool reads_memory(const Halide::Expr &e);
// A Var or RVar (a loop's), not a parameter or a buffer's min or extent.
inline bool is_loop_var(const Halide::Internal::Variable *v) { return !v->param.defined() && !v->image.defined(); }
// Whether any definition of `f` converts a value of another type to float16 (a Cast to f16 from
// f32, f64 or an integer).
bool converts_to_f16(const Halide::Internal::Function &f);
// Whether any definition of `f` loads 8- or 16-bit values (a Func's or an input's) at an index whose
// lanes along a pure var would not be an ascending ramp: a division, a remainder or a shift of the
// var (an upsampling's `in(x / 2)`), or the var subtracted from what names no pure var (a
// reversal's `in(w - 1 - x)`, not a shift's `in(x - d)`) or scaled by a negative constant; not an
// index under a select (a mirrored boundary's) or one that loads (a lookup's, reads_memory), which
// are gathered lane by lane. Halide 21's CUDA backend loads such vectors densely and shuffles
// them, and LLVM's NVPTX code generator then fails an assertion on 8-bit lanes (x / 2 from 8 lanes,
// a reversal from 4), and ran for over 20 minutes on one random pipeline's 16-bit lanes (a 12-bit
// image's planar channels upsampled at 2 * (x / 2), 8 lanes each).
bool loads_narrow_shuffled(const Halide::Internal::Function &f);
// Whether any definition of `f` loads 64-bit values along its innermost pure var (a call of a Func
// or an input of such a type, indexed by that var: a dense vector load once vectorized). A guarded
// vector load of them fails an LLVM assertion in Halide 21's CUDA backend. (A scalar read at every
// point, a mean in float64, is one broadcast load, which Halide compiles.)
bool loads_64_bit_vectors(const Halide::Internal::Function &f);
// Whether any definition of `f` counts bits (popcount, count_leading_zeros, count_trailing_zeros):
// Halide 21's OpenCL C backend calls helpers for those that it does not define.
bool counts_bits(const Halide::Internal::Function &f);
// Whether any definition of `f` calls what Halide 21 compiles on the host only: a `require` (its
// error call), a `print` or `print_when`, or any other extern C or C++ function (an impure extern
// call). A GPU kernel holding one stops the CUDA and OpenCL code generators.
bool calls_host_only(const Halide::Internal::Function &f);

}  // namespace solder
