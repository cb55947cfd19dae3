#include "runtime/pipeline_fingerprint.h"

#include <cstdio>
#include <map>
#include <sstream>

namespace solder {
using namespace Halide;
using namespace Halide::Internal;

namespace {

// The Funcs a definition calls, in the order its expressions call them.
class CalleeCollector : public IRVisitor {
public:
    std::vector<Function> found;

protected:
    using IRVisitor::visit;
    void visit(const Call *op) override {
        if (op->call_type == Call::Halide && op->func.defined()) found.emplace_back(op->func);
        IRVisitor::visit(op);
    }
};

// Rewrites an expression with canonical names so that printing it gives the same text for the
// same algorithm, whatever Halide named things this time.
class Canonicalizer : public IRMutator {
public:
    std::map<std::string, std::string> funcs;   // Function name -> F<k>
    std::map<std::string, std::string> params;  // input or other Parameter name -> in<k> / p<k>
    std::map<std::string, std::string> locals;  // pure args a<k> and RVars r<k> of the definition printed
    std::vector<std::string> exact;             // float constants and embedded buffers, in visit order

    std::string param_id(const std::string &name) {
        auto it = params.find(name);
        if (it != params.end()) return it->second;
        return params[name] = "p" + std::to_string(params.size());
    }

    std::string text(const Expr &e) {
        if (!e.defined()) return "-";
        std::ostringstream o;
        o << mutate(e);
        return o.str();
    }

protected:
    using IRMutator::visit;
    int lets_ = 0;

    // "x.min.0" for input x becomes "in0.min.0": the suffix says which field of the buffer it is.
    std::string renamed(const std::string &owner, const std::string &name) {
        std::string id = param_id(owner);
        if (name.compare(0, owner.size(), owner) == 0) return id + name.substr(owner.size());
        return id + "|" + name;
    }

    Expr visit(const Variable *op) override {
        auto it = locals.find(op->name);
        if (it != locals.end()) return Variable::make(op->type, it->second);
        if (op->param.defined()) return Variable::make(op->type, renamed(op->param.name(), op->name));
        if (op->image.defined()) return Variable::make(op->type, renamed(op->image.name(), op->name));
        return op;
    }

    Expr visit(const Call *op) override {
        std::string name;
        if (op->call_type == Call::Halide) {
            auto it = funcs.find(op->name);
            name = (it != funcs.end() ? it->second : "?" + op->name) + "." + std::to_string(op->value_index);
        } else if (op->call_type == Call::Image && op->param.defined()) {
            name = param_id(op->param.name());
        } else if (op->call_type == Call::Image && op->image.defined()) {
            name = buffer_id(op->image);
        } else {
            return IRMutator::visit(op);
        }
        // Printed as a pure extern call: Halide calls need a FunctionPtr, and only the text matters.
        return Call::make(op->type, name, mutate(op->args), Call::PureExtern);
    }

    Expr visit(const FloatImm *op) override {
        char b[64];
        std::snprintf(b, sizeof b, "%a", op->value);
        exact.push_back(b);
        return op;
    }

    Expr visit(const Let *op) override {
        Expr value = mutate(op->value);
        std::string name = "let" + std::to_string(lets_++);
        auto saved = locals;
        locals[op->name] = name;
        Expr body = mutate(op->body);
        locals = saved;
        return Let::make(name, value, body);
    }

    // A buffer baked into the pipeline: its contents are part of the algorithm.
    std::string buffer_id(const Buffer<> &b) {
        uint64_t h = 1469598103934665603ull;
        const uint8_t *p = b.data() ? static_cast<const uint8_t *>(b.data()) : nullptr;
        for (size_t i = 0; p && i < b.size_in_bytes(); i++) h = (h ^ p[i]) * 1099511628211ull;
        std::ostringstream o;
        o << "buffer" << exact.size() << "<" << b.type() << " x" << b.dimensions() << " #" << std::hex << h << ">";
        exact.push_back(o.str());
        return o.str();
    }
};

void print_bounds(std::ostream &o, const char *what, const std::vector<Bound> &bs, Canonicalizer &c) {
    for (auto &b : bs) {
        auto it = c.locals.find(b.var);
        o << "  " << what << " " << (it != c.locals.end() ? it->second : "?" + b.var) << " [" << c.text(b.min) << ", "
          << c.text(b.extent) << "] mod " << c.text(b.modulus) << " rem " << c.text(b.remainder) << "\n";
    }
}

void print_buffer_constraints(std::ostream &o, const Parameter &p, Canonicalizer &c) {
    for (int d = 0; d < p.dimensions(); d++)
        o << "  dim " << d << " estimate [" << c.text(p.min_constraint_estimate(d)) << ", "
          << c.text(p.extent_constraint_estimate(d)) << "] constraint [" << c.text(p.min_constraint(d)) << ", "
          << c.text(p.extent_constraint(d)) << ", stride " << c.text(p.stride_constraint(d)) << "]\n";
}

void print_definition(std::ostream &o, const std::string &what, const Definition &def, Canonicalizer &c) {
    auto pure = c.locals;
    const auto &rvars = def.schedule().rvars();
    for (size_t i = 0; i < rvars.size(); i++) c.locals[rvars[i].var] = "r" + std::to_string(i);
    o << "  " << what << ":";
    for (size_t i = 0; i < rvars.size(); i++)
        o << " r" << i << "=[" << c.text(rvars[i].min) << ", " << c.text(rvars[i].extent) << "]";
    o << "\n    args";
    for (auto &a : def.args()) o << " " << c.text(a);
    o << "\n    values";
    for (auto &v : def.values()) o << " " << c.text(v);
    o << "\n    where " << c.text(def.predicate()) << "\n";
    c.locals = pure;
}

void print_function(std::ostream &o, const Function &f, Canonicalizer &c) {
    o << c.funcs.at(f.name()) << " dims " << f.dimensions() << " types";
    for (auto &t : f.output_types()) o << " " << t;
    o << "\n";
    c.locals.clear();
    for (size_t i = 0; i < f.args().size(); i++) c.locals[f.args()[i]] = "a" + std::to_string(i);
    if (f.has_extern_definition()) {
        o << "  extern " << f.extern_function_name() << "(";
        for (auto &a : f.extern_arguments()) {
            if (a.is_func())
                o << " " << c.funcs.at(Function(a.func).name());
            else if (a.is_expr())
                o << " " << c.text(a.expr);
            else if (a.is_image_param())
                o << " " << c.param_id(a.image_param.name());
            else
                o << " buffer";
        }
        o << " )\n";
    } else {
        print_definition(o, "pure", f.definition(), c);
    }
    for (size_t i = 0; i < f.updates().size(); i++)
        print_definition(o, "update " + std::to_string(i), f.update(int(i)), c);
    print_bounds(o, "estimate", f.schedule().estimates(), c);
    print_bounds(o, "bound", f.schedule().bounds(), c);
    for (auto &b : f.output_buffers()) {
        o << "  output buffer " << b.type() << "\n";
        print_buffer_constraints(o, b, c);
    }
}

// Every Function reachable from the outputs, outputs first, then each Function's callees in the
// order its definitions call them: an order that depends on the graph only, never on names.
std::vector<Function> graph_order(const std::vector<Func> &outputs, std::map<std::string, std::string> &ids) {
    std::vector<Function> order;
    auto add = [&](const Function &f) {
        if (ids.count(f.name())) return;
        ids[f.name()] = "F" + std::to_string(order.size());
        order.push_back(f);
    };
    for (auto &o : outputs) add(o.function());
    for (size_t i = 0; i < order.size(); i++) {
        const Function f = order[i];
        CalleeCollector calls;
        auto visit_def = [&](const Definition &d) {
            for (auto &rv : d.schedule().rvars()) rv.min.accept(&calls), rv.extent.accept(&calls);
            for (auto &a : d.args()) a.accept(&calls);
            for (auto &v : d.values()) v.accept(&calls);
            if (d.predicate().defined()) d.predicate().accept(&calls);
        };
        if (f.has_extern_definition()) {
            for (auto &a : f.extern_arguments())
                if (a.is_func())
                    calls.found.emplace_back(a.func);
                else if (a.is_expr())
                    a.expr.accept(&calls);
        } else {
            visit_def(f.definition());
        }
        for (auto &u : f.updates()) visit_def(u);
        for (auto &callee : calls.found) add(callee);
    }
    return order;
}

}  // namespace

std::string pipeline_fingerprint(const std::vector<ImageParam> &inputs, const std::vector<Func> &outputs,
                                 const std::vector<Argument> &scalars) {
    Canonicalizer c;
    std::ostringstream o;
    for (size_t i = 0; i < inputs.size(); i++) c.params[inputs[i].name()] = "in" + std::to_string(i);
    // Scalar parameters: their type and the estimate the plan is made at.
    for (size_t i = 0; i < scalars.size(); i++) {
        c.params[scalars[i].name] = "s" + std::to_string(i);
        o << "s" << i << " " << scalars[i].type << " estimate " << c.text(scalars[i].argument_estimates.scalar_estimate)
          << "\n";
    }
    for (size_t i = 0; i < inputs.size(); i++) {
        const Parameter &p = inputs[i].parameter();
        o << "in" << i << " " << p.type() << " dims " << p.dimensions() << " align " << p.host_alignment() << "\n";
        print_buffer_constraints(o, p, c);
    }
    std::vector<Function> order = graph_order(outputs, c.funcs);
    o << "outputs";
    for (auto &f : outputs) o << " " << c.funcs.at(f.name());
    o << "\n";
    for (auto &f : order) print_function(o, f, c);
    o << "exact";
    for (auto &e : c.exact) o << " " << e;
    o << "\n";
    return o.str();
}

}  // namespace solder
