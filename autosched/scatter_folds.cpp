#include "autosched/scatter_folds.h"

#include <map>
#include <optional>

#include "autosched/keep_better.h"
#include "autosched/model/pipeline_funcs.h"

namespace solder::autosched {

using namespace Halide;
using namespace Halide::Internal;

namespace {

// A keep-the-better scatter in the header's form: value i = select(cond, news[i], f(at)[i]).
struct Scatter : KeepBetter {
    Function f;
    std::vector<Expr> at;  // the update's point
    std::vector<ReductionVariable> rvars;
};

bool keyed_type(const Type &t) {
    return (t.is_float() && t.bits() == 32) || ((t.is_int() || t.is_uint()) && t.bits() <= 32);
}

std::optional<Scatter> as_scatter(const Function &f) {
    if (f.has_extern_definition() || f.updates().size() != 1 || f.args().empty()) return std::nullopt;
    const Definition &u = f.updates()[0];
    if (!u.specializations().empty() || !f.definition().specializations().empty()) return std::nullopt;
    if (u.predicate().defined() && !is_const_one(u.predicate())) return std::nullopt;
    if (u.schedule().rvars().empty() || writes_pure_vars_in_order(f, u)) return std::nullopt;
    std::vector<Expr> at;
    for (const Expr &a : u.args()) {
        at.push_back(substitute_in_all_lets(a));
        if (calls_func(at.back(), f.name())) return std::nullopt;
    }
    auto k = keep_better_update(f, u, at);
    if (!k || !keyed_type(k->news[size_t(k->value_index)].type())) return std::nullopt;
    Scatter s;
    static_cast<KeepBetter &>(s) = *k;
    s.f = f;
    s.at = at;
    s.rvars = u.schedule().rvars();
    return s;
}

// A signed 32-bit key of `v` that orders as the fold prefers: the less key, the better value.
// Floats: the IEEE bits as an int, the magnitude bits of negatives flipped so that they order as
// the values do, -0 taken as +0 (the comparison calls them equal: a later -0 must not beat an
// earlier +0). Unsigned 32-bit integers: the sign bit flipped. A larger value wins through ~key,
// which reverses the order.
Expr order_key(const Expr &v, bool greater) {
    const Expr magnitude = make_const(Int(32), 0x7fffffff);
    Expr k;
    if (v.type().is_float()) {
        // (On the bits: Halide compiles floats without signed zeros, and a select of +0 for a zero
        // may be folded away.)
        const Expr raw = reinterpret(Int(32), v);
        const Expr bits = select((raw & magnitude) == make_zero(Int(32)), make_zero(Int(32)), raw);
        k = select(bits < make_zero(Int(32)), bits ^ magnitude, bits);
    } else if (v.type().is_uint() && v.type().bits() == 32) {
        k = reinterpret(Int(32), v ^ make_const(UInt(32), 0x80000000u));
    } else {
        k = cast(Int(32), v);
    }
    return greater ? ~k : k;
}

ScatterFold rewrite(const Scatter &s) {
    const Function &f = s.f;
    const auto &R = s.rvars;
    std::vector<Var> pure;
    for (auto &a : f.args()) pure.emplace_back(a);
    const std::vector<Expr> here(pure.begin(), pure.end());

    // Both passes walk the update's points with an RDom of their own.
    std::vector<Range> ranges;
    for (auto &rv : R) ranges.emplace_back(rv.min, rv.extent);
    RDom r(ranges, unique_name(f.name() + "_points"));
    std::map<std::string, Expr> to;
    for (size_t k = 0; k < R.size(); k++) to[R[k].var] = r[int(k)];
    std::vector<Expr> at;
    for (auto &a : s.at) at.push_back(substitute(to, a));
    // The point's value against the initial one where it lands: only a strictly better value wins.
    std::map<std::string, Expr> landing;
    for (size_t d = 0; d < f.args().size(); d++) landing[f.args()[d]] = at[d];
    const Expr value = substitute(to, s.news[size_t(s.value_index)]);
    const Expr initial = substitute(landing, substitute_in_all_lets(f.values()[size_t(s.value_index)]));
    const Expr wins = s.greater ? value > initial : value < initial;
    const Expr key = order_key(value, s.greater);
    const Expr no_key = Int(32).max(), no_index = UInt(64).max();

    Func keys(unique_name(f.name() + "_keys"));
    keys(pure) = no_key;
    keys(at) = min(keys(at), select(wins, key, no_key));

    // The point's index in the RDom's order (innermost RVar fastest), and its RVars back from it.
    Expr index = make_zero(UInt(64)), stride = make_one(UInt(64));
    std::vector<Expr> extents;
    for (size_t k = 0; k < R.size(); k++) {
        extents.push_back(max(R[k].extent, 1));
        index = index + cast(UInt(64), r[int(k)] - R[k].min) * stride;
        stride = stride * cast(UInt(64), extents.back());
    }
    Func indices(unique_name(f.name() + "_first"));
    indices(pure) = no_index;
    indices(at) = min(indices(at), select(wins && key == keys(at), index, no_index));

    const Expr first = indices(here);
    std::map<std::string, Expr> back;
    stride = make_one(UInt(64));
    for (size_t k = 0; k < R.size(); k++) {
        const Expr step = cast(Int(32), (first / stride) % cast(UInt(64), extents[k]));
        back[R[k].var] = R[k].min + clamp(step, 0, extents[k] - 1);
        stride = stride * cast(UInt(64), extents[k]);
    }
    // (Built on a Func of the same pure vars, reading its own elements, then moved into the Func with
    // those reads made the Func's: an update at its pure vars with no RDom, its loops named as
    // Halide names them.)
    Func holder(unique_name(f.name() + "_won"));
    holder(pure) = Tuple(f.values());
    std::vector<Expr> values;
    for (size_t i = 0; i < s.news.size(); i++)
        values.push_back(select(first == no_index, holder(here)[int(i)], substitute(back, s.news[i])));
    holder(pure) = Tuple(values);
    Definition won = holder.function().update(0).get_copy();
    for (Expr &v : won.values()) v = calls_retargeted(v, holder.name(), f);
    Function target = f;
    target.update(0) = won;
    return {f.name(), keys.name(), indices.name()};
}

}  // namespace

std::vector<ScatterFold> rewrite_scatter_folds(const std::vector<Func> &outputs) {
    std::vector<ScatterFold> done;
    for (const Function &f : pipeline_functions(outputs))
        if (auto s = as_scatter(f)) done.push_back(rewrite(*s));
    return done;
}

std::string scatter_fold_reason(const ScatterFold &f) {
    return "a scatter keeping, at each point, the strictly better value in the points' order (a select on a strict "
           "comparison, which Halide cannot run in parallel): computed by two atomic min passes, the best key (" +
           f.keys + ") and then its first point (" + f.indices + "), and " + f.func +
           " takes the winning point's values, so the first of equal values still wins";
}

}  // namespace solder::autosched
