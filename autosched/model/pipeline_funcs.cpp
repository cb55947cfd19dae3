#include "autosched/model/pipeline_funcs.h"

#include <algorithm>
#include <map>
#include <set>

#include "autosched/model/options.h"

namespace solder {
using namespace Halide;
using Halide::Internal::Function;

Expr buffer_field(const Parameter &p, const std::string &field, int dim) {
    return Internal::Variable::make(Int(32), p.name() + "." + field + "." + std::to_string(dim), p);
}

bool is_input_wrapper(const Function &f) {
    if (f.updates().size() || f.definition().values().size() != 1) return false;
    const auto *c = f.definition().values()[0].as<Internal::Call>();
    return c && c->call_type == Internal::Call::Image && c->param.defined();
}

std::vector<size_t> specialization_counts(const Function &f) {
    std::vector<size_t> counts{f.definition().specializations().size()};
    for (const auto &u : f.updates()) counts.push_back(u.specializations().size());
    return counts;
}

bool has_specializations(const Function &f) {
    for (size_t c : specialization_counts(f))
        if (c) return true;
    return false;
}

bool has_predicate(const Internal::Definition &d) {
    return d.predicate().defined() && !Internal::is_const_one(d.predicate());
}

bool reads_func_or_buffer(const Expr &e) {
    struct Reads : Internal::IRVisitor {
        bool found = false;
        using Internal::IRVisitor::visit;
        void visit(const Internal::Call *c) override {
            found = found || c->call_type == Internal::Call::Halide || c->call_type == Internal::Call::Image;
            Internal::IRVisitor::visit(c);
        }
    } v;
    e.accept(&v);
    return v.found;
}

bool predicate_not_relaxable(const Internal::Definition &d) {
    if (!has_predicate(d)) return false;
    struct PartialMath : Internal::IRVisitor {
        bool found = false;
        using Internal::IRVisitor::visit;
        void visit(const Internal::Call *op) override {
            static const char *const kPartial[] = {"sqrt_f", "log_f",   "pow_f",  "asin_f",
                                                   "acos_f", "acosh_f", "atanh_f"};
            if (op->call_type == Internal::Call::PureExtern && op->type.is_float())
                for (const char *p : kPartial)
                    if (op->name.rfind(p, 0) == 0) found = true;
            Internal::IRVisitor::visit(op);
        }
    } v;
    d.predicate().accept(&v);
    return v.found;
}

std::vector<std::string> funcs_in_stored_index(const Internal::Function &f, int u) {
    struct Calls : Internal::IRVisitor {
        std::vector<std::string> names;
        using Internal::IRVisitor::visit;
        void visit(const Internal::Call *op) override {
            if (op->call_type == Internal::Call::Halide &&
                std::find(names.begin(), names.end(), op->name) == names.end())
                names.push_back(op->name);
            Internal::IRVisitor::visit(op);
        }
    } calls;
    for (const Expr &a : f.update(u).args()) a.accept(&calls);
    calls.names.erase(std::remove(calls.names.begin(), calls.names.end(), f.name()), calls.names.end());
    return calls.names;
}

namespace {

// The pure vars of `f` at which the predicate of `d` loads: from any Func or input, or (`funcs_only`)
// from a Func only (an input is called through the wrapper Func Halide makes for it).
std::set<std::string> predicate_load_vars(const Internal::Function &f, const Internal::Definition &d, bool funcs_only) {
    if (!has_predicate(d)) return {};
    struct Loads : Internal::IRVisitor {
        const std::vector<std::string> *pure = nullptr;
        bool funcs_only = false;
        std::set<std::string> found;
        using Internal::IRVisitor::visit;
        void visit(const Internal::Call *op) override {
            const bool input = op->call_type == Internal::Call::Image ||
                               (op->func.defined() && is_input_wrapper(Internal::Function(op->func)));
            if ((op->call_type == Internal::Call::Halide || op->call_type == Internal::Call::Image) &&
                !(funcs_only && input))
                for (const Expr &a : op->args)
                    for (const std::string &v : *pure)
                        if (Internal::expr_uses_var(a, v)) found.insert(v);
            Internal::IRVisitor::visit(op);
        }
    } loads;
    loads.pure = &f.args();
    loads.funcs_only = funcs_only;
    d.predicate().accept(&loads);
    return loads.found;
}

}  // namespace

std::set<std::string> pure_vars_predicate_loads_at(const Internal::Function &f, const Internal::Definition &d) {
    return predicate_load_vars(f, d, false);
}

bool predicate_loads_at_pure_vars(const Internal::Function &f, const Internal::Definition &d) {
    return !pure_vars_predicate_loads_at(f, d).empty();
}

bool predicate_loads_func_at_pure_vars(const Internal::Function &f, const Internal::Definition &d) {
    return !predicate_load_vars(f, d, true).empty();
}

bool uniform_predicate(const Internal::Definition &d) {
    if (!has_predicate(d)) return false;
    struct Uniform : Internal::IRVisitor {
        std::set<std::string> rvars;
        bool uniform = true;
        using Internal::IRVisitor::visit;
        void visit(const Internal::Variable *op) override {
            if (!rvars.count(op->name) && !op->param.defined()) uniform = false;
        }
        void visit(const Internal::Call *op) override {
            if (op->call_type == Internal::Call::Halide || op->call_type == Internal::Call::Image) uniform = false;
            Internal::IRVisitor::visit(op);
        }
    } u;
    for (auto &rv : d.schedule().rvars()) u.rvars.insert(rv.var);
    d.predicate().accept(&u);
    return u.uniform;
}

bool varying_predicate(const Internal::Definition &d) { return has_predicate(d) && !uniform_predicate(d); }

std::map<std::string, Parameter> pipeline_input_buffers(const std::vector<Func> &outputs) {
    struct Finder : Internal::IRGraphVisitor {
        std::map<std::string, Parameter> found;
        using Internal::IRGraphVisitor::visit;
        void visit(const Internal::Call *c) override {
            Internal::IRGraphVisitor::visit(c);
            if (c->call_type == Internal::Call::Image && c->param.defined() && c->param.is_buffer())
                found.emplace(c->param.name(), c->param);
        }
    } finder;
    for (const Func &o : outputs)
        for (auto &[name, fn] : Internal::find_transitive_calls(o.function())) {
            (void)name;
            fn.accept(&finder);
        }
    return finder.found;
}

std::vector<Function> pipeline_functions(const std::vector<Func> &outputs) {
    std::vector<Function> outs;
    for (auto &f : outputs) outs.push_back(f.function());
    std::map<std::string, Function> env = Internal::build_environment(outs);
    std::vector<Function> order;
    for (auto &name : Internal::topological_order(outs, env))
        if (!is_input_wrapper(env.at(name))) order.push_back(env.at(name));
    return order;
}

std::vector<Var> pure_vars(const Func &f) {
    std::vector<Var> v;
    for (auto &a : f.function().args()) v.emplace_back(a);
    return v;
}

std::vector<VarOrRVar> stage_pure_vars(const Function &f, int stage) {
    std::vector<VarOrRVar> vars;
    if (stage == 0) {
        for (auto &a : f.args()) vars.emplace_back(Var(a));
        return vars;
    }
    const auto &pure = f.args();
    for (auto &e : f.update(stage - 1).args()) {
        const auto *v = e.as<Internal::Variable>();
        if (v && std::find(pure.begin(), pure.end(), v->name) != pure.end()) vars.emplace_back(Var(v->name));
    }
    return vars;
}

LoopLevel locked_copy(const LoopLevel &level) {
    LoopLevel copy;
    copy.set(level);
    copy.lock();
    return copy;
}

namespace {
LoopLevel locked_compute_level(const Function &f) { return locked_copy(f.schedule().compute_level()); }
}  // namespace

bool is_computed_at_root(const Function &f) { return locked_compute_level(f).is_root(); }

bool is_computed_at_own_copy(const Function &f) {
    const LoopLevel at = locked_compute_level(f);
    if (at.is_root() || at.is_inlined()) return false;
    return at.func().rfind(f.name() + "_global_wrapper", 0) == 0;
}

int count_root_stages(const std::vector<Func> &outputs) {
    int n = 0;
    for (auto &f : pipeline_functions(outputs)) {
        bool is_output = false;
        for (auto &o : outputs) is_output |= o.name() == f.name();
        if (is_output || is_computed_at_root(f)) n++;
    }
    return n;
}

bool is_gpu_target(const Target &t) { return t.has_gpu_feature(); }

void autosched::plan_for_target(PlannerOptions &opt, const Target &t) {
    opt.gpu = is_gpu_target(t);
    opt.shared_atomics = opt.float_atomics = true;
    limit_to_target(opt, t);
}

void autosched::limit_to_target(PlannerOptions &opt, const Target &t) {
    if (t.has_feature(Target::OpenCL)) opt.shared_atomics = opt.float_atomics = false;
}

std::set<std::string> direct_callees(const Function &f) {
    std::set<std::string> out;
    if (f.has_extern_definition()) {
        for (auto &a : f.extern_arguments())
            if (a.is_func()) out.insert(Function(a.func).name());
        return out;
    }
    for (auto &[name, callee] : Internal::find_direct_calls(f)) out.insert(name);
    return out;
}

bool has_value_of_type(const Function &f, const std::function<bool(const Type &)> &pred) {
    struct Finder : Internal::IRGraphVisitor {
        const std::function<bool(const Type &)> &pred;
        bool found = false;
        explicit Finder(const std::function<bool(const Type &)> &p) : pred(p) {}
        using Internal::IRGraphVisitor::include;
        void include(const Expr &e) override {
            if (e.defined() && !e.type().is_handle() && pred(e.type())) found = true;
            Internal::IRGraphVisitor::include(e);
        }
    } finder(pred);
    f.accept(&finder);  // (the definitions' sub-expressions; their tops are of the output types)
    for (const Type &t : f.output_types()) finder.found = finder.found || pred(t);
    return finder.found;
}

namespace {

// Whether any definition of `f` makes a call `pred` takes.
bool any_call(const Function &f, const std::function<bool(const Internal::Call *)> &pred) {
    struct Finder : Internal::IRGraphVisitor {
        const std::function<bool(const Internal::Call *)> *pred = nullptr;
        bool found = false;
        using Internal::IRGraphVisitor::visit;
        void visit(const Internal::Call *c) override {
            found = found || (*pred)(c);
            Internal::IRGraphVisitor::visit(c);
        }
    } finder;
    finder.pred = &pred;
    f.accept(&finder);
    return finder.found;
}

}  // namespace

bool reads_at_clamped_index(const Function &f, const std::string &producer) {
    // (A bound that is a constant, as lang's clamps of a stacked piece's index to [0, 0], leaves the
    // interval exact: only bounds against run-time values, as a boundary condition's, count.)
    struct Clamp : Internal::IRGraphVisitor {
        bool found = false;
        using Internal::IRGraphVisitor::visit;
        void symbolic(const Expr &a, const Expr &b) {
            found = found || (!Internal::is_const(a) && !Internal::is_const(b));
        }
        void visit(const Internal::Min *op) override {
            symbolic(op->a, op->b);
            Internal::IRGraphVisitor::visit(op);
        }
        void visit(const Internal::Max *op) override {
            symbolic(op->a, op->b);
            Internal::IRGraphVisitor::visit(op);
        }
        void visit(const Internal::Select *op) override {
            symbolic(op->true_value, op->false_value);
            Internal::IRGraphVisitor::visit(op);
        }
    };
    return any_call(f, [&](const Internal::Call *c) {
        if (c->call_type != Internal::Call::Halide || c->name != producer) return false;
        for (const Expr &a : c->args) {
            Clamp clamp;
            a.accept(&clamp);
            if (clamp.found) return true;
        }
        return false;
    });
}

bool loads_64_bit_vectors(const Function &f) {
    if (f.args().empty()) return false;
    const std::string inner = f.args()[0];
    return any_call(f, [&](const Internal::Call *c) {
        if ((c->call_type != Internal::Call::Halide && c->call_type != Internal::Call::Image) || c->type.bits() != 64)
            return false;
        for (const Expr &a : c->args)
            if (Internal::expr_uses_var(a, inner)) return true;
        return false;
    });
}

bool counts_bits(const Function &f) {
    return any_call(f, [](const Internal::Call *c) {
        return c->is_intrinsic(Internal::Call::popcount) || c->is_intrinsic(Internal::Call::count_leading_zeros) ||
               c->is_intrinsic(Internal::Call::count_trailing_zeros);
    });
}

bool calls_host_only(const Function &f) {
    return any_call(f, [](const Internal::Call *c) {
        return c->is_intrinsic(Internal::Call::require) || c->call_type == Internal::Call::Extern ||
               c->call_type == Internal::Call::ExternCPlusPlus;
    });
}

bool uses_rvar(const Expr &e) {
    struct RVars : Internal::IRGraphVisitor {
        bool found = false;
        using Internal::IRGraphVisitor::visit;
        void visit(const Internal::Variable *v) override { found |= v->reduction_domain.defined(); }
    } rv;
    e.accept(&rv);
    return rv.found;
}

bool calls_func(const Expr &e, const std::string &name) {
    struct Finder : Internal::IRVisitor {
        std::string name;
        bool found = false;
        using Internal::IRVisitor::visit;
        void visit(const Internal::Call *c) override {
            found = found || (c->call_type == Internal::Call::Halide && c->name == name);
            Internal::IRVisitor::visit(c);
        }
    } finder;
    finder.name = name;
    e.accept(&finder);
    return finder.found;
}

bool own_element_at(const Expr &e, const Internal::Function &f, int index, const std::vector<Expr> &at) {
    const auto *c = e.as<Internal::Call>();
    if (!c || c->name != f.name() || c->value_index != index || c->args.size() != at.size()) return false;
    for (size_t d = 0; d < at.size(); d++)
        if (!Internal::equal(c->args[d], at[d])) return false;
    return true;
}

std::string without_dollars(std::string name) {
    for (char &c : name)
        if (c == '$') c = '_';
    return name;
}

Expr calls_retargeted(const Expr &e, const std::string &from, const Internal::Function &to) {
    struct Retarget : Internal::IRMutator {
        std::string from;
        Internal::Function to;
        using Internal::IRMutator::visit;
        Expr visit(const Internal::Call *c) override {
            if (c->call_type != Internal::Call::Halide || c->name != from) return Internal::IRMutator::visit(c);
            std::vector<Expr> args;
            for (auto &a : c->args) args.push_back(mutate(a));
            return Internal::Call::make(to, args, c->value_index);
        }
    } retarget;
    retarget.from = from;
    retarget.to = to;
    return retarget.mutate(e);
}

std::optional<FoldedUpdate> folded_update(const Internal::Function &f) {
    if (f.has_extern_definition() || f.outputs() != 1 || f.updates().size() != 1 || has_specializations(f))
        return std::nullopt;
    const Expr init = Internal::substitute_in_all_lets(f.values()[0]);
    if (!Internal::is_const(init)) return std::nullopt;
    const Internal::Definition &u = f.updates()[0];
    if (has_predicate(u) || u.schedule().rvars().empty() || !writes_pure_vars_in_order(f, u)) return std::nullopt;
    const Expr v = Internal::substitute_in_all_lets(u.values()[0]);
    Expr a, b;
    FoldedUpdate::Op op;
    if (const auto *x = v.as<Internal::Add>()) {
        a = x->a, b = x->b, op = FoldedUpdate::Op::Add;
    } else if (const auto *x = v.as<Internal::Max>()) {
        a = x->a, b = x->b, op = FoldedUpdate::Op::Max;
    } else if (const auto *x = v.as<Internal::Min>()) {
        a = x->a, b = x->b, op = FoldedUpdate::Op::Min;
    } else {
        return std::nullopt;
    }
    std::vector<Expr> here;
    for (auto &arg : f.args()) here.push_back(Internal::Variable::make(Int(32), arg));
    Expr added;
    if (own_element_at(a, f, 0, here))
        added = b;
    else if (own_element_at(b, f, 0, here))
        added = a;
    else
        return std::nullopt;
    if (calls_func(added, f.name()) || !uses_rvar(added)) return std::nullopt;
    return FoldedUpdate{op, init, added};
}

bool same_first_update_domain(const Internal::Function &a, const Internal::Function &b) {
    if (a.args() != b.args() || a.updates().empty() || b.updates().empty()) return false;
    const auto &ra = a.update(0).schedule().rvars(), &rb = b.update(0).schedule().rvars();
    if (ra.size() != rb.size()) return false;
    for (size_t k = 0; k < ra.size(); k++)
        if (ra[k].var != rb[k].var || !Internal::equal(ra[k].min, rb[k].min) ||
            !Internal::equal(ra[k].extent, rb[k].extent))
            return false;
    return true;
}

bool writes_pure_vars_in_order(const Internal::Function &f, const Internal::Definition &u) {
    if (u.args().size() != f.args().size()) return false;
    for (size_t d = 0; d < u.args().size(); d++) {
        const auto *v = u.args()[d].as<Internal::Variable>();
        if (!v || v->name != f.args()[d]) return false;
    }
    return true;
}

bool reads_memory(const Expr &e) {
    struct Finder : Internal::IRVisitor {
        bool found = false;
        using Internal::IRVisitor::visit;
        void visit(const Internal::Call *c) override {
            found |= c->call_type == Internal::Call::Halide || c->call_type == Internal::Call::Image;
            Internal::IRVisitor::visit(c);
        }
        void visit(const Internal::Load *) override { found = true; }
    } f;
    e.accept(&f);
    return f.found;
}

namespace {

// Whether `e` names a pure var (a Variable that is neither a parameter, an input's extent among
// them, nor an RVar).
bool names_pure_var(const Expr &e) {
    struct Vars : Internal::IRVisitor {
        bool found = false;
        using Internal::IRVisitor::visit;
        void visit(const Internal::Variable *v) override {
            found |= !v->param.defined() && !v->reduction_domain.defined();
        }
    } vars;
    e.accept(&vars);
    return vars.found;
}

}  // namespace

bool loads_narrow_shuffled(const Function &f) {
    // (Indices whose lanes along a pure var are not an ascending ramp: a division, a remainder or
    // a shift of it, or it subtracted from what names no pure var or scaled by a negative constant.
    // An index under a select, a mirrored boundary's, or one that loads, a lookup's, is gathered
    // lane by lane instead.)
    struct Shuffled : Internal::IRVisitor {
        bool found = false, select = false;
        using Internal::IRVisitor::visit;
        void visit(const Internal::Select *op) override {
            select = true;
            Internal::IRVisitor::visit(op);
        }
        void visit(const Internal::Div *op) override {
            found |= names_pure_var(op->a);
            Internal::IRVisitor::visit(op);
        }
        void visit(const Internal::Mod *op) override {
            found |= names_pure_var(op->a);
            Internal::IRVisitor::visit(op);
        }
        void visit(const Internal::Sub *op) override {
            // (x - d, a disparity's shift, ascends along x, the var a kernel vectorizes.)
            found |= names_pure_var(op->b) && !names_pure_var(op->a);
            Internal::IRVisitor::visit(op);
        }
        void visit(const Internal::Mul *op) override {
            found |= (Internal::is_negative_const(op->a) && names_pure_var(op->b)) ||
                     (Internal::is_negative_const(op->b) && names_pure_var(op->a));
            Internal::IRVisitor::visit(op);
        }
        void visit(const Internal::Call *op) override {
            found |= (op->is_intrinsic(Internal::Call::shift_right) || op->is_intrinsic(Internal::Call::shift_left)) &&
                     !op->args.empty() && names_pure_var(op->args[0]);
            Internal::IRVisitor::visit(op);
        }
    };
    return any_call(f, [](const Internal::Call *c) {
        if ((c->call_type != Internal::Call::Halide && c->call_type != Internal::Call::Image) || c->type.bits() > 16)
            return false;
        for (const Expr &a : c->args) {
            Shuffled s;
            a.accept(&s);
            if (s.found && !s.select && !reads_memory(a)) return true;
        }
        return false;
    });
}

bool converts_to_f16(const Function &f) {
    struct Finder : Internal::IRGraphVisitor {
        bool found = false;
        using Internal::IRGraphVisitor::visit;
        void visit(const Internal::Cast *c) override {
            const Type to = c->type.element_of(), from = c->value.type().element_of();
            if (to.is_float() && to.bits() == 16 && to != from) found = true;
            Internal::IRGraphVisitor::visit(c);
        }
    } finder;
    f.accept(&finder);
    return finder.found;
}

}  // namespace solder
