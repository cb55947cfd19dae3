#include "autosched/hoisted_requirements.h"

#include "autosched/model/pipeline_funcs.h"

namespace solder::autosched {
using namespace Halide;
using namespace Halide::Internal;

namespace {

// Whether an Expr is the same at every point of every Func: it names scalar parameters and input
// sizes (Variables bound to a Parameter) and constants, calls only pure operations, reads nothing.
bool same_everywhere(const Expr &e) {
    struct Visit : IRGraphVisitor {
        bool ok = true;
        using IRGraphVisitor::visit;
        void visit(const Variable *v) override { ok &= v->param.defined() && !v->reduction_domain.defined(); }
        void visit(const Load *) override { ok = false; }
        void visit(const Call *c) override {
            ok &= c->call_type == Call::PureIntrinsic || c->call_type == Call::PureExtern;
            IRGraphVisitor::visit(c);
        }
    } v;
    e.accept(&v);
    return v.ok;
}

// The message Halide's require() prints, less the value it guards, as the args it was given:
// require(c, value, args...) stringifies the value and the args with a space between each (merged
// into the text pieces) and a newline; Pipeline::add_requirement is given the args, and puts the
// spaces and the newline back.
std::vector<Expr> message_without_value(const Expr &text) {
    const Call *s = text.as<Call>();
    if (!s || !s->is_intrinsic(Call::stringify) || s->args.empty()) return {text};
    std::vector<Expr> args;
    for (size_t i = 1; i < s->args.size(); i++) {
        const StringImm *piece = s->args[i].as<StringImm>();
        if (!piece) {
            args.push_back(s->args[i]);
            continue;
        }
        std::string v = piece->value;
        if (i + 1 == s->args.size() && !v.empty() && v.back() == '\n') v.pop_back();
        if (!v.empty() && v.front() == ' ') v.erase(0, 1);
        if (!v.empty() && v.back() == ' ') v.pop_back();
        if (!v.empty()) args.push_back(StringImm::make(v));
    }
    return args;
}

class Hoist : public IRMutator {
public:
    std::vector<Requirement> found;
    std::string func;
    using IRMutator::visit;

    Expr visit(const Let *op) override {
        lets_.emplace_back(op->name, op->value);
        Expr e = IRMutator::visit(op);
        lets_.pop_back();
        return e;
    }

    // (A require() inside a select's branch checks only the points that take that branch: it stays.)
    Expr visit(const Select *op) override {
        Expr cond = mutate(op->condition);
        branches_++;
        Expr t = mutate(op->true_value), f = mutate(op->false_value);
        branches_--;
        return Select::make(cond, t, f);
    }

    Expr visit(const Call *c) override {
        if (c->is_intrinsic(Call::if_then_else)) {
            branches_++;
            Expr e = IRMutator::visit(c);
            branches_--;
            return e;
        }
        // Halide's require(condition, value, args...) is the intrinsic over likely(condition), the
        // value and halide_error_requirement_failed(the condition as text, the message), inside lets
        // that name the condition and the value.
        const Call *error = c->is_intrinsic(Call::require) && c->args.size() == 3 ? c->args[2].as<Call>() : nullptr;
        if (!error || error->name != "halide_error_requirement_failed" || error->args.size() != 2 || branches_ > 0)
            return IRMutator::visit(c);
        Expr condition = resolved(c->args[0]);
        if (const Call *l = condition.as<Call>(); l && l->is_intrinsic(Call::likely)) condition = l->args[0];
        const std::vector<Expr> message = message_without_value(resolved(error->args[1]));
        bool invariant = same_everywhere(condition);
        for (const Expr &m : message) invariant &= same_everywhere(m);
        if (!invariant) return IRMutator::visit(c);
        found.push_back({func, condition, message});
        return mutate(c->args[1]);
    }

private:
    std::vector<std::pair<std::string, Expr>> lets_;  // the lets around the current node, outermost first
    int branches_ = 0;                                // selects and if_then_elses the node is a branch of

    Expr resolved(Expr e) const {
        for (auto it = lets_.rbegin(); it != lets_.rend(); ++it) e = substitute(it->first, it->second, e);
        return e;
    }
};

}  // namespace

std::vector<Requirement> hoist_requirements(const std::vector<Func> &outputs) {
    Hoist h;
    for (Function f : pipeline_functions(outputs)) {
        if (f.has_extern_definition()) continue;
        h.func = f.name();
        f.mutate(&h);
    }
    return h.found;
}

void add_requirements(Pipeline &p, const std::vector<Requirement> &requirements) {
    std::vector<Expr> added;
    for (const Requirement &r : requirements) {
        bool seen = false;
        for (const Expr &a : added) seen |= equal(a, r.condition);
        if (seen) continue;
        added.push_back(r.condition);
        p.add_requirement(r.condition, r.message);
    }
}

std::string hoisted_requirement_reason() {
    return "its require() names only parameters and sizes: checked once before the pipeline runs "
           "(Pipeline::add_requirement, same message), so its kernel runs on the device";
}

}  // namespace solder::autosched
