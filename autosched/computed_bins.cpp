#include "autosched/computed_bins.h"

#include <map>
#include <optional>

#include "autosched/model/generic_reason.h"
#include "autosched/model/pipeline_funcs.h"

namespace solder::autosched {

using namespace Halide;
using namespace Halide::Internal;

namespace {

// The RVars `e` uses, by name, as the Variables it holds (their RDom attached); false where it
// uses another Variable than an RVar or a scalar parameter (a pure var of the Func, which a Func
// of the RVars alone could not compute).
bool rvars_in(const Expr &e, std::map<std::string, Expr> &out) {
    struct RVars : IRVisitor {
        std::map<std::string, Expr> *out;
        bool other = false;
        using IRVisitor::visit;
        void visit(const Variable *v) override {
            if (v->reduction_domain.defined())
                out->emplace(v->name, v);
            else if (!v->param.defined())
                other = true;
        }
    } v;
    v.out = &out;
    e.accept(&v);
    return !v.other;
}

// Calls to `f` at `from` made at `to` instead.
class RetargetSelfReads : public IRMutator {
    const std::string f;
    const std::vector<Expr> &from, &to;
    using IRMutator::visit;
    Expr visit(const Call *c) override {
        if (c->call_type != Call::Halide || c->name != f || c->args.size() != from.size()) return IRMutator::visit(c);
        for (size_t i = 0; i < from.size(); i++)
            if (!equal(c->args[i], from[i])) return IRMutator::visit(c);
        return Call::make(c->type, c->name, to, c->call_type, c->func, c->value_index, c->image, c->param);
    }

public:
    RetargetSelfReads(std::string f, const std::vector<Expr> &from, const std::vector<Expr> &to)
        : f(std::move(f)), from(from), to(to) {}
};

std::optional<ComputedBin> rewrite(Function f, const Target &target) {
    if (f.has_extern_definition() || f.updates().empty() || has_specializations(f)) return std::nullopt;
    const int u = int(f.updates().size()) - 1;
    if (!scatter_update(f, u) || !atomic_update(f, u, target)) return std::nullopt;
    Definition &d = f.update(u);
    std::vector<Expr> args;
    for (const Expr &a : d.args()) args.push_back(substitute_in_all_lets(a));
    std::map<std::string, Expr> used;
    bool computed = false;
    for (const Expr &a : args) {
        if (a.as<Variable>()) continue;  // (a pure var or an RVar as it is: stored as it is)
        if (reads_func_or_buffer(a) || !rvars_in(a, used)) return std::nullopt;
        computed = true;
    }
    if (!computed || used.empty()) return std::nullopt;
    const std::string base = f.name().substr(0, f.name().find('$'));  // (Halide's uniquified name$N)
    // The bin Func's vars: the RVars the args use, in the RDom's order.
    std::vector<Expr> at;
    std::vector<Var> vars;
    std::map<std::string, Expr> to_vars;
    for (const ReductionVariable &rv : d.schedule().rvars()) {
        auto it = used.find(rv.var);
        if (it == used.end()) continue;
        at.push_back(it->second);
        vars.push_back(Var(unique_name(base + "_bin_v")));
        to_vars[rv.var] = vars.back();
    }
    std::vector<Expr> values;
    for (const Expr &a : args)
        if (!a.as<Variable>()) values.push_back(substitute(to_vars, a));
    Func bins(unique_name(base + "_bin"));
    if (values.size() == 1)
        bins(vars) = values[0];
    else
        bins(vars) = Tuple(values);
    std::vector<Expr> new_args;
    int element = 0;
    for (const Expr &a : args) new_args.push_back(a.as<Variable>() ? a : Call::make(bins.function(), at, element++));
    RetargetSelfReads retarget(f.name(), args, new_args);
    // (The values' lets substituted first: a read of itself inside one names its args by them.)
    for (Expr &v : d.values()) v = retarget.mutate(substitute_in_all_lets(v));
    d.args() = new_args;
    return ComputedBin{f.name(), bins.name()};
}

}  // namespace

std::vector<ComputedBin> rewrite_computed_bins(const std::vector<Func> &outputs, const Target &target) {
    std::vector<ComputedBin> done;
    for (const Function &f : pipeline_functions(outputs))
        if (auto b = rewrite(f, target)) done.push_back(*b);
    return done;
}

std::string computed_bin_reason(const ComputedBin &b) {
    return "its scatter's bin is computed from the RDom's points alone: moved into " + b.bins +
           ", computed at each point, so that Halide emits an atomic add for each increment instead of a "
           "compare-and-swap loop (the stored index and the value's read of it had been given lets of their own)";
}

}  // namespace solder::autosched
