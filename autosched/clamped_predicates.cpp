#include "autosched/clamped_predicates.h"

#include "autosched/model/pipeline_funcs.h"

namespace solder::autosched {

using namespace Halide;
using namespace Halide::Internal;

namespace {

class ClampLoads : public IRMutator {
public:
    explicit ClampLoads(const Scope<Interval> &rvars) : rvars_(rvars) {}
    bool changed = false;

private:
    const Scope<Interval> &rvars_;
    using IRMutator::visit;

    Expr visit(const Call *op) override {
        if (op->call_type != Call::Halide && op->call_type != Call::Image) return IRMutator::visit(op);
        std::vector<Expr> args;
        bool any = false;
        for (const Expr &a : op->args) {
            Expr m = mutate(a);
            if (expr_uses_vars(m, rvars_)) {
                const Interval b = bounds_of_expr_in_scope(m, rvars_);
                if (b.has_lower_bound() && b.has_upper_bound()) m = clamp(m, b.min, b.max);
            }
            any |= !m.same_as(a);
            args.push_back(m);
        }
        if (!any) return op;
        changed = true;
        return Call::make(op->type, op->name, args, op->call_type, op->func, op->value_index, op->image, op->param);
    }
};

}  // namespace

std::vector<std::string> clamp_predicate_loads(const std::vector<Func> &outputs) {
    std::vector<std::string> changed;
    for (Function f : pipeline_functions(outputs)) {
        bool any = false;
        for (size_t i = 0; i < f.updates().size(); i++) {
            Definition &u = f.update(int(i));
            if (!u.predicate().defined() || is_const(u.predicate())) continue;
            Scope<Interval> rvars;
            for (const ReductionVariable &rv : u.schedule().rvars())
                rvars.push(rv.var, Interval(rv.min, simplify(rv.min + rv.extent - 1)));
            ClampLoads m(rvars);
            Expr p = m.mutate(substitute_in_all_lets(u.predicate()));
            if (!m.changed) continue;
            u.predicate() = p;
            any = true;
        }
        if (any) changed.push_back(f.name());
    }
    return changed;
}

std::string clamped_predicate_reason() {
    return "the loads of its RDom's predicate are clamped to the RDom's bounds (the same values at every point it "
           "visits): Halide's bounds of a predicate loaded past a guarded split's last step would read beyond the "
           "input (a schedule pasted into the algorithm needs the same clamps)";
}

}  // namespace solder::autosched
