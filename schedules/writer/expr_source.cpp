#include "schedules/writer/expr_source.h"

#include "schedules/writer/aligned_vectors.h"

namespace solder {
using namespace Halide;
using namespace Halide::Internal;

const char *const kParamHelperName = "solder_param";

const char *const kParamHelper =
    R"(// A scalar parameter of the pipeline, found by name in the Funcs' definitions (an RDom's bounds).
auto solder_param = [&](const std::string &name) {
    struct Finder : Halide::Internal::IRGraphVisitor {
        std::string name;
        Halide::Parameter found;
        using Halide::Internal::IRGraphVisitor::visit;
        void visit(const Halide::Internal::Variable *v) override {
            if (v->param.defined() && !v->param.is_buffer() && v->name == name) found = v->param;
        }
    } finder;
    finder.name = name;
    for (auto &o : pipeline.outputs())
        for (auto &kv : Halide::Internal::find_transitive_calls(o.function())) kv.second.accept(&finder);
    return Halide::Internal::Variable::make(finder.found.type(), name, finder.found);
};)";

namespace {

// An input buffer's field, as Halide names it: "in.extent.0" -> ("extent", 0).
bool buffer_field(const Variable *v, std::string &field, int &dim) {
    const std::string prefix = v->param.name() + ".";
    if (v->name.rfind(prefix, 0) != 0) return false;
    const std::string rest = v->name.substr(prefix.size());
    const size_t dot = rest.find('.');
    if (dot == std::string::npos) return false;
    field = rest.substr(0, dot);
    if (field != "min" && field != "extent" && field != "stride") return false;
    const std::string d = rest.substr(dot + 1);
    if (d.empty() || d.find_first_not_of("0123456789") != std::string::npos) return false;
    dim = std::stoi(d);
    return true;
}

void print(const Expr &e, ExprSource &s, bool &ok);

void binary(const Expr &a, const Expr &b, const char *op, ExprSource &s, bool &ok) {
    s.text += "(";
    print(a, s, ok);
    s.text += std::string(" ") + op + " ";
    print(b, s, ok);
    s.text += ")";
}

void call(const char *fn, const Expr &a, const Expr &b, ExprSource &s, bool &ok) {
    s.text += std::string(fn) + "(";
    print(a, s, ok);
    s.text += ", ";
    print(b, s, ok);
    s.text += ")";
}

void print(const Expr &e, ExprSource &s, bool &ok) {
    if (!ok) return;
    if (e.type() != Int(32)) {
        ok = false;
        return;
    }
    if (const IntImm *i = e.as<IntImm>()) {
        s.text += "Expr(" + std::to_string(i->value) + ")";
    } else if (const Variable *v = e.as<Variable>()) {
        std::string field;
        int dim = 0;
        if (!v->param.defined()) {
            ok = false;
        } else if (!v->param.is_buffer() && v->name == v->param.name()) {
            s.text += std::string(kParamHelperName) + "(\"" + v->name + "\")";
            s.names_params = true;
        } else if (v->param.is_buffer() && buffer_field(v, field, dim)) {
            s.text += std::string(kInputFieldHelperName) + "(\"" + v->param.name() + "\", \"" + field + "\", " +
                      std::to_string(dim) + ")";
            s.names_inputs = true;
        } else {
            ok = false;
        }
    } else if (const Add *a = e.as<Add>()) {
        binary(a->a, a->b, "+", s, ok);
    } else if (const Sub *b = e.as<Sub>()) {
        binary(b->a, b->b, "-", s, ok);
    } else if (const Mul *m = e.as<Mul>()) {
        binary(m->a, m->b, "*", s, ok);
    } else if (const Div *d = e.as<Div>()) {
        binary(d->a, d->b, "/", s, ok);
    } else if (const Mod *m = e.as<Mod>()) {
        binary(m->a, m->b, "%", s, ok);
    } else if (const Min *m = e.as<Min>()) {
        call("min", m->a, m->b, s, ok);
    } else if (const Max *m = e.as<Max>()) {
        call("max", m->a, m->b, s, ok);
    } else {
        ok = false;
    }
}

}  // namespace

ExprSource expr_source(const Expr &e) {
    ExprSource s;
    bool ok = e.defined();
    if (ok) print(e, s, ok);
    return ok ? s : ExprSource{};
}

}  // namespace solder
