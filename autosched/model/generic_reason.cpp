#include "autosched/model/generic_reason.h"

#include <algorithm>
#include <functional>
#include <map>
#include <sstream>

#include "autosched/model/pipeline_funcs.h"

namespace solder::autosched {

const char *const kProvableArgMaxHint =
    "; Halide proves an arg-max written with the value first and the old point kept unless the new one wins, "
    "which can then be split: f() = Tuple(max(f()[0], v), select(f()[0] > v, f()[1], r.x), select(f()[0] > v, "
    "f()[2], r.y)) (arg-min: min and <; ties take the later point)";
using namespace Halide;
using namespace Halide::Internal;

namespace {

std::string text(const Expr &e) {
    std::ostringstream o;
    o << e;
    return o.str();
}

std::string call_text(const std::string &f, const std::vector<Expr> &args) {
    std::string s = f + "(";
    for (size_t i = 0; i < args.size(); i++) s += (i ? ", " : "") + text(args[i]);
    return s + ")";
}

// Whether update `u` of `f` writes, at position `d`, the pure var of that position as it is.
bool pure_in_place(const Function &f, const Definition &u, size_t d) {
    const auto *v = d < u.args().size() ? u.args()[d].as<Variable>() : nullptr;
    return v && d < f.args().size() && v->name == f.args()[d];
}

// Whether update `u` is an arg-reduction as Halide's inline argmin/argmax writes it: a Tuple
// each of whose values is a select on one condition between a new value and the old one.
bool arg_reduction(const Definition &u) {
    if (u.values().size() < 2) return false;
    Expr cond;
    for (const Expr &value : u.values()) {
        const Expr v = substitute_in_all_lets(value);  // (Halide's argmax binds the value to lets)
        const auto *sel = v.as<Select>();
        if (!sel) return false;
        if (cond.defined() && !equal(cond, sel->condition)) return false;
        cond = sel->condition;
    }
    return true;
}

// Whether update `u` of `f` rewrites each point in place from that point, with no RDom.
bool rewrites_in_place(const Function &f, const Definition &u) {
    if (u.args().size() != f.args().size() || !u.schedule().rvars().empty()) return false;
    for (size_t d = 0; d < u.args().size(); d++)
        if (!pure_in_place(f, u, d)) return false;
    return true;
}

}  // namespace

namespace {

std::string update_reason(const Function &f, const Definition &u, bool with_predicate);

// generic_reason, less the predicate check where `with_predicate` is false.
std::string reason(const Function &f, bool with_predicate) {
    if (f.has_extern_definition()) return "an extern stage (define_extern): computed by its own code, at root";
    const auto &updates = f.updates();
    if (updates.empty()) return "";
    if (updates.size() > 1)
        return std::to_string(updates.size()) + " update definitions: the fused templates take at most one";
    return update_reason(f, updates[0], with_predicate);
}

// The reason for a Func whose one update is `u`.
std::string update_reason(const Function &f, const Definition &u, bool with_predicate) {
    const auto &args = u.args();
    if (!writes_pure_vars_in_order(f, u))
        return "its update writes " + call_text(f.name(), args) +
               ", not its pure vars in order: a scan or a scatter (data-dependent or shifted stores)";
    if (with_predicate && varying_predicate(u))
        return "its update's RDom has a predicate (RDom::where): " + text(u.predicate());
    const auto &rvars = u.schedule().rvars();
    if (rvars.empty()) return "an update without an RDom: it rewrites the Func point by point";
    if (!prove_associativity(f.name(), args, u.values()).associative()) {
        std::string why = "Halide cannot prove its update associative (" + call_text(f.name(), args) + " = " +
                          text(u.values()[0]) + "): it cannot be split across threads";
        // (Halide's inline argmax is such a select on every value, the first point winning ties:
        // the form below is one its prover knows; over 4096 x 2160 the cost model then estimates
        // 22 us in parallel against 6.2 ms in one thread.)
        if (arg_reduction(u)) why += kProvableArgMaxHint;
        return why;
    }
    return "";
}

}  // namespace

std::string generic_reason(const Function &f) { return reason(f, true); }

bool reduction_then_refinements(const Function &f) {
    if (f.has_extern_definition() || f.updates().size() < 2 || has_specializations(f)) return false;
    if (!update_reason(f, f.update(0), true).empty()) return false;
    for (size_t i = 1; i < f.updates().size(); i++)
        if (!rewrites_in_place(f, f.update(int(i)))) return false;
    return true;
}

bool predicated_reduction(const Function &f) {
    if (f.has_extern_definition() || f.updates().size() != 1) return false;
    return has_predicate(f.update(0)) && !predicate_not_relaxable(f.update(0)) && reason(f, false).empty();
}

namespace {

bool mentions_any(const Expr &e, const std::vector<std::string> &vars) {
    for (auto &v : vars)
        if (expr_uses_var(e, v)) return true;
    return false;
}

}  // namespace

bool reduces_per_point(const Function &f) {
    if (f.has_extern_definition() || f.updates().empty()) return false;
    bool rdom = false;
    for (const Definition &u : f.updates()) {
        if (u.args().size() != f.args().size()) return false;
        for (size_t d = 0; d < u.args().size(); d++)
            if (!pure_in_place(f, u, d)) return false;
        rdom |= !u.schedule().rvars().empty();
    }
    return rdom;
}

bool refined_in_place(const Function &f) {
    if (f.has_extern_definition() || f.updates().empty()) return false;
    for (const Definition &u : f.updates())
        if (!rewrites_in_place(f, u)) return false;
    return true;
}

bool point_scan(const Function &f) {
    if (f.has_extern_definition() || f.updates().empty() || f.args().size() < 2) return false;
    const auto &pure = f.args();
    for (const Definition &u : f.updates()) {
        const auto &args = u.args();
        if (args.size() != pure.size()) return false;
        for (size_t d = 0; d < args.size(); d++)
            if (!pure_in_place(f, u, d) && mentions_any(args[d], pure))
                return false;  // a pure var moved or shifted: a transpose or a shift, not a scan
        // (Halide itself requires every read of the Func in an update to have each of the
        // update's pure vars in its place: the steps read only their own point's.)
        if (!pure_in_place(f, u, 0) || !pure_in_place(f, u, 1)) return false;
    }
    return true;
}

std::vector<int> point_scan_dims(const Function &f) {
    std::vector<int> dims;
    for (size_t d = 0; d < f.args().size(); d++)
        for (const Definition &u : f.updates())
            if (!pure_in_place(f, u, d)) {
                dims.push_back(int(d));
                break;
            }
    return dims;
}

namespace {

// Whether each value of update `d` of `f` reads, of `f` itself, only its own element (`hist(b)[0] +
// 1` and `hist(b)[1] + v`, not a mean that reads the count): Halide then updates each element
// atomically on its own, with no lock (which its GPU backends lack).
bool independent_elements(const Function &f, const Definition &d) {
    for (size_t i = 0; i < d.values().size(); i++) {
        struct Reads : IRGraphVisitor {
            std::string name;
            int own = 0;
            bool other = false;
            using IRGraphVisitor::visit;
            void visit(const Call *op) override {
                IRGraphVisitor::visit(op);
                if (op->call_type == Call::Halide && op->name == name) other = other || op->value_index != own;
            }
        } reads;
        reads.name = f.name();
        reads.own = int(i);
        substitute_in_all_lets(d.values()[i]).accept(&reads);
        if (reads.other) return false;
    }
    return true;
}

// Update `u` of `f` has an RDom, and an operator Halide proves associative and commutative (for a
// Tuple, each element's, the elements independent): its RDom's points may run in any order, all
// at once. A predicate only on a scatter (a histogram of the pixels above a threshold), and one
// that does not read `f`: each point's increment then happens or not whatever the others do.
// (Reductions with predicates take the reduction templates: FuncNode::predicated_reduction.)
bool any_order_update(const Function &f, int u) {
    const Definition &d = f.update(u);
    if (d.values().empty() || d.schedule().rvars().empty()) return false;
    if (has_predicate(d) && (!scatter_update(f, u) || calls_func(d.predicate(), f.name()))) return false;
    if (d.values().size() > 1 && !independent_elements(f, d)) return false;
    auto op = prove_associativity(f.name(), d.args(), d.values());
    return op.associative() && op.commutative();
}

// Whether every value of update `u` of `f` has a type `pred` takes.
bool every_value_type(const Function &f, int u, const std::function<bool(const Type &)> &pred) {
    for (const Expr &v : f.update(u).values())
        if (!pred(v.type())) return false;
    return true;
}

}  // namespace

bool scatter_update(const Function &f, int u) {
    for (auto &a : f.update(u).args()) {
        const auto *v = a.as<Variable>();
        if (!v || std::find(f.args().begin(), f.args().end(), v->name) == f.args().end()) return true;
    }
    return false;
}

bool chunked_scatter(const Function &f, int u) {
    const Definition &d = f.update(u);
    if (d.schedule().rvars().empty() || !any_order_update(f, u)) return false;
    // (A 0-d Func has no bin dim for the chunks' threads: its increments go to it directly.)
    if (f.args().empty() || !scatter_update(f, u)) return false;
    if (predicate_not_relaxable(d)) return false;  // (the chunks are an rfactor)
    return every_value_type(
        f, u, [](const Type &t) { return t.bits() == 32 && (t.is_int() || t.is_uint() || t.is_float()); });
}

namespace {

// The terms of `e` added or subtracted at its top, each with its sign (`a + b - c`: a +1, b +1,
// c -1).
void added_terms(const Expr &e, int sign, std::vector<std::pair<Expr, int>> &out) {
    if (const auto *a = e.as<Add>()) {
        added_terms(a->a, sign, out);
        added_terms(a->b, sign, out);
    } else if (const auto *sb = e.as<Sub>()) {
        added_terms(sb->a, sign, out);
        added_terms(sb->b, -sign, out);
    } else {
        out.push_back({e, sign});
    }
}

// The constant `s` of a term `s * r`, `r * s` or `r`, else nothing.
std::optional<int64_t> coefficient_of(const Expr &term, const std::string &r) {
    auto is_r = [&](const Expr &e) {
        const auto *v = e.as<Variable>();
        return v && v->name == r;
    };
    if (is_r(term)) return 1;
    if (const auto *m = term.as<Mul>()) {
        if (is_r(m->a)) return as_const_int(m->b);
        if (is_r(m->b)) return as_const_int(m->a);
    }
    return std::nullopt;
}

// Whether arg `a` is `s * r + e` with every value of `e` within a span narrower than |s| over
// `scope` (the RVars at their bounds; loads bounded by their clamps and types).
bool separates(const Expr &a, const std::string &r, const Scope<Interval> &scope) {
    std::vector<std::pair<Expr, int>> terms;
    added_terms(a, 1, terms);
    int64_t s = 0;
    Expr rest = make_zero(a.type());
    for (const auto &[t, sign] : terms) {
        const Expr term = simplify(t);
        if (auto c = coefficient_of(term, r))
            s += sign * *c;
        else
            rest = sign > 0 ? rest + term : rest - term;
    }
    if (s == 0) return false;
    const Interval iv = bounds_of_expr_in_scope(simplify(rest), scope);
    if (!iv.is_bounded()) return false;
    auto span = as_const_int(simplify(iv.max - iv.min));
    return span && *span >= 0 && *span < std::abs(s);
}

}  // namespace

bool distinct_points_update(const Function &f, int u) {
    const Definition &d = f.update(u);
    const auto &rvars = d.schedule().rvars();
    if (rvars.empty() || d.args().size() != f.args().size()) return false;
    // It reads the Func nowhere but at the point it stores (an in-place update of a region,
    // `out(r.x, r.y) = out(r.x, r.y) * gain`): no point's value waits on another's.
    struct Reads : IRGraphVisitor {
        std::string name;
        std::vector<Expr> store;
        bool elsewhere = false;
        using IRGraphVisitor::visit;
        void visit(const Call *op) override {
            IRGraphVisitor::visit(op);
            if (op->call_type != Call::Halide || op->name != name) return;
            for (size_t i = 0; i < op->args.size() && !elsewhere; i++)
                elsewhere = i >= store.size() || !equal(simplify(op->args[i]), store[i]);
            elsewhere = elsewhere || op->args.size() != store.size();
        }
    } reads;
    reads.name = f.name();
    for (const Expr &a : d.args()) reads.store.push_back(simplify(substitute_in_all_lets(a)));
    for (const Expr &e : d.values()) substitute_in_all_lets(e).accept(&reads);
    if (reads.elsewhere) return false;
    for (const Expr &e : d.args())
        if (calls_func(e, f.name())) return false;
    if (has_predicate(d) && calls_func(d.predicate(), f.name())) return false;
    // Its pure vars in their places (a pure var elsewhere could meet another point's write).
    for (size_t i = 0; i < d.args().size(); i++) {
        if (pure_in_place(f, d, i)) continue;
        for (const std::string &v : f.args())
            if (expr_uses_var(d.args()[i], v)) return false;
    }
    // RVars proved one at a time: two points that agree on those already proved may still differ in
    // the others, so those keep one value in each span (`r.x + 4 * r.y`, r.x in [0, 4): r.y first,
    // its offset r.x spanning 3 < 4; then r.x, with 4 * r.y the same at both points).
    Scope<Interval> scope;
    for (const auto &rv : rvars) scope.push(rv.var, Interval(rv.min, simplify(rv.min + rv.extent - 1)));
    std::vector<std::string> left;
    for (const auto &rv : rvars) left.push_back(rv.var);
    while (!left.empty()) {
        auto proved = std::find_if(left.begin(), left.end(), [&](const std::string &r) {
            return std::any_of(d.args().begin(), d.args().end(),
                               [&](const Expr &a) { return expr_uses_var(a, r) && separates(a, r, scope); });
        });
        if (proved == left.end()) return false;
        const Expr at = Variable::make(Int(32), *proved);
        scope.pop(*proved);
        scope.push(*proved, Interval(at, at));
        left.erase(proved);
    }
    return true;
}

namespace {

// Whether two points of update `u` that differ in its innermost RVar, at the same step of the outer
// RVars (or at any steps of them, `any_step`), never write one point, and neither reads what the
// other writes.
bool innermost_rvar_apart(const Function &f, int u, bool any_step) {
    const Definition &def = f.update(u);
    const auto &rvars = def.schedule().rvars();
    if (rvars.size() < 2 || has_predicate(def) || def.args().size() != f.args().size()) return false;
    std::vector<Expr> store;
    for (const Expr &a : def.args()) {
        if (calls_func(a, f.name())) return false;
        store.push_back(substitute_in_all_lets(a));
    }
    // The other point: the innermost RVar moved by d != 0, the pure vars renamed, the outer RVars
    // kept.
    const Expr d = Variable::make(Int(32), rvars[0].var + ".d");
    std::map<std::string, Expr> other;
    other[rvars[0].var] = Variable::make(Int(32), rvars[0].var) + d;
    for (const std::string &v : f.args()) other[v] = Variable::make(Int(32), v + ".other");
    for (size_t i = 1; any_step && i < rvars.size(); i++)
        other[rvars[i].var] = Variable::make(Int(32), rvars[i].var + ".other");
    std::vector<Expr> other_store;
    for (const Expr &a : store) other_store.push_back(substitute(other, a));
    // A point `at` never meets the other's store where one of its args alone cannot equal the
    // other's (a conjunction the simplifier would not see through whole: `s.x != s.x'` far from
    // `s.x == s.x'`).
    auto apart = [&](const std::vector<Expr> &at) {
        for (size_t i = 0; i < at.size(); i++)
            if (can_prove(!(d != 0 && at[i] == other_store[i]))) return true;
        return false;
    };
    if (!apart(store)) return false;
    struct Loads : IRGraphVisitor {
        std::string name;
        std::vector<std::vector<Expr>> at;
        using IRGraphVisitor::visit;
        void visit(const Call *op) override {
            IRGraphVisitor::visit(op);
            if (op->name == name && op->call_type == Call::Halide) at.push_back(op->args);
        }
    } loads;
    loads.name = f.name();
    for (const Expr &v : def.values()) substitute_in_all_lets(v).accept(&loads);
    for (const std::vector<Expr> &at : loads.at)
        if (at.size() != store.size() || !apart(at)) return false;
    return true;
}

}  // namespace

bool innermost_rvar_parallel_per_step(const Function &f, int u) { return innermost_rvar_apart(f, u, false); }

bool innermost_rvar_independent(const Function &f, int u) { return innermost_rvar_apart(f, u, true); }

bool all_points_at_once(const Function &f, int u, const Target &target) {
    return atomic_update(f, u, target) || distinct_points_update(f, u);
}

bool atomic_update(const Function &f, int u, const Target &target) {
    if (!any_order_update(f, u)) return false;
    if (target.has_feature(Target::CUDA))
        return every_value_type(f, u,
                                [](const Type &t) { return t.bits() == 32 || (t.bits() == 64 && !t.is_float()); });
    if (target.has_feature(Target::OpenCL))
        return every_value_type(f, u, [](const Type &t) { return t.bits() == 32 && !t.is_float(); });
    return false;  // the host: serial updates
}

}  // namespace solder::autosched
