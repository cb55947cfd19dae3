#include "schedules/writer/expr_source.h"

#include <cstdint>
#include <cstdio>
#include <functional>
#include <vector>

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

using OutputNamer = std::function<std::string(const std::string &)>;

void print(const Expr &e, ExprSource &s, bool &ok, const OutputNamer &out);

void binary(const Expr &a, const Expr &b, const char *op, ExprSource &s, bool &ok, const OutputNamer &out) {
    s.text += "(";
    print(a, s, ok, out);
    s.text += std::string(" ") + op + " ";
    print(b, s, ok, out);
    s.text += ")";
}

void call(const char *fn, const std::vector<Expr> &args, ExprSource &s, bool &ok, const OutputNamer &out) {
    s.text += std::string(fn) + "(";
    for (size_t i = 0; i < args.size(); i++) {
        if (i) s.text += ", ";
        print(args[i], s, ok, out);
    }
    s.text += ")";
}

// A scalar type as C++ (`Int(32)`), or "" for a vector or a handle.
std::string type_source(const Type &t) {
    if (t.lanes() != 1) return "";
    const std::string bits = std::to_string(t.bits());
    if (t.is_bool()) return "Halide::Bool()";
    if (t.is_int()) return "Halide::Int(" + bits + ")";
    if (t.is_uint()) return "Halide::UInt(" + bits + ")";
    if (t.is_float() && !t.is_bfloat()) return "Halide::Float(" + bits + ")";
    return "";
}

// A pure call as the Halide function that makes it: floating-point math (`sqrt_f32(x)` as
// `Halide::sqrt(x)`, its type that of its arguments), abs, and the bitwise operators.
void print_call(const Call *c, ExprSource &s, bool &ok, const OutputNamer &out) {
    static const char *const kMath[] = {"sqrt", "exp",  "log",   "floor", "ceil",  "round", "trunc",
                                        "sin",  "cos",  "tan",   "asin",  "acos",  "atan",  "sinh",
                                        "cosh", "tanh", "asinh", "acosh", "atanh", "pow",   "atan2"};
    if (c->call_type == Call::PureExtern && c->type.is_float()) {
        const std::string suffix = "_f" + std::to_string(c->type.bits());
        const size_t at = c->name.size() > suffix.size() ? c->name.size() - suffix.size() : 0;
        if (at && c->name.compare(at, std::string::npos, suffix) == 0) {
            const std::string fn = c->name.substr(0, at);
            for (const char *m : kMath)
                if (fn == m) {
                    for (const Expr &a : c->args) ok = ok && a.type() == c->type;
                    if (ok) call(("Halide::" + fn).c_str(), c->args, s, ok, out);
                    return;
                }
        }
    }
    if (c->call_type == Call::PureIntrinsic) {
        static const std::pair<Call::IntrinsicOp, const char *> kBinary[] = {{Call::bitwise_and, "&"},
                                                                             {Call::bitwise_or, "|"},
                                                                             {Call::bitwise_xor, "^"},
                                                                             {Call::shift_left, "<<"},
                                                                             {Call::shift_right, ">>"}};
        for (const auto &[op, text] : kBinary)
            if (c->is_intrinsic(op) && c->args.size() == 2 && c->args[0].type() == c->args[1].type()) {
                binary(c->args[0], c->args[1], text, s, ok, out);
                return;
            }
        if (c->is_intrinsic(Call::bitwise_not) && c->args.size() == 1) {
            s.text += "~";
            call("", c->args, s, ok, out);
            return;
        }
        if (c->is_intrinsic(Call::abs) && c->args.size() == 1) {
            call("Halide::abs", c->args, s, ok, out);
            return;
        }
    }
    ok = false;
}

// (Longer source is refused: lets substituted can grow a condition without bound.)
constexpr size_t kMaxSourceChars = 1 << 16;

void print(const Expr &e, ExprSource &s, bool &ok, const OutputNamer &out) {
    if (ok && s.text.size() > kMaxSourceChars) ok = false;
    if (!ok) return;
    const std::string type = type_source(e.type());
    // (Constants: an int32 and a float32 as they are, wider or narrower ones made and cast.)
    const std::string cast_to = e.type() == Int(32) || e.type() == Float(32) ? "" : "Halide::cast(" + type + ", ";
    if (type.empty()) {
        ok = false;
    } else if (const IntImm *i = e.as<IntImm>()) {
        if (i->value == INT64_MIN) {  // (no literal of it)
            ok = false;
            return;
        }
        const std::string v = std::to_string(i->value);
        s.text += cast_to.empty() ? "Halide::Expr(" + v + ")" : cast_to + "Halide::Expr(int64_t(" + v + ")))";
    } else if (const UIntImm *u = e.as<UIntImm>()) {
        s.text += cast_to + "Halide::Expr(uint64_t(" + std::to_string(u->value) + "ULL)))";
    } else if (const FloatImm *f = e.as<FloatImm>()) {
        char v[64];
        std::snprintf(v, sizeof v, "%a", f->value);  // exactly
        s.text += cast_to.empty() ? "Halide::Expr(" + std::string(v) + "f)" : cast_to + "Halide::Expr(" + v + "))";
    } else if (const Variable *v = e.as<Variable>()) {
        std::string field;
        int dim = 0;
        if (!v->param.defined()) {
            ok = false;
        } else if (!v->param.is_buffer() && v->name == v->param.name()) {
            s.text += std::string(kParamHelperName) + "(\"" + v->name + "\")";
            s.names_params = true;
        } else if (v->param.is_buffer() && e.type() == Int(32) && buffer_field(v, field, dim) && out &&
                   !out(v->param.name()).empty()) {
            s.text += out(v->param.name()) + ".dim(" + std::to_string(dim) + ")." + field + "()";
        } else if (v->param.is_buffer() && e.type() == Int(32) && buffer_field(v, field, dim)) {
            s.text += std::string(kInputFieldHelperName) + "(\"" + v->param.name() + "\", \"" + field + "\", " +
                      std::to_string(dim) + ")";
            s.names_inputs = true;
        } else {
            ok = false;
        }
    } else if (const Cast *c = e.as<Cast>()) {
        s.text += "Halide::cast(" + type + ", ";
        print(c->value, s, ok, out);
        s.text += ")";
    } else if (const Add *a = e.as<Add>()) {
        binary(a->a, a->b, "+", s, ok, out);
    } else if (const Sub *b = e.as<Sub>()) {
        binary(b->a, b->b, "-", s, ok, out);
    } else if (const Mul *m = e.as<Mul>()) {
        binary(m->a, m->b, "*", s, ok, out);
    } else if (const Div *d = e.as<Div>()) {
        binary(d->a, d->b, "/", s, ok, out);
    } else if (const Mod *m = e.as<Mod>()) {
        binary(m->a, m->b, "%", s, ok, out);
    } else if (const Min *m = e.as<Min>()) {
        call("Halide::min", {m->a, m->b}, s, ok, out);
    } else if (const Max *m = e.as<Max>()) {
        call("Halide::max", {m->a, m->b}, s, ok, out);
    } else if (const EQ *q = e.as<EQ>()) {
        binary(q->a, q->b, "==", s, ok, out);
    } else if (const NE *q = e.as<NE>()) {
        binary(q->a, q->b, "!=", s, ok, out);
    } else if (const LT *q = e.as<LT>()) {
        binary(q->a, q->b, "<", s, ok, out);
    } else if (const LE *q = e.as<LE>()) {
        binary(q->a, q->b, "<=", s, ok, out);
    } else if (const GT *q = e.as<GT>()) {
        binary(q->a, q->b, ">", s, ok, out);
    } else if (const GE *q = e.as<GE>()) {
        binary(q->a, q->b, ">=", s, ok, out);
    } else if (const And *q = e.as<And>()) {
        binary(q->a, q->b, "&&", s, ok, out);
    } else if (const Or *q = e.as<Or>()) {
        binary(q->a, q->b, "||", s, ok, out);
    } else if (const Not *q = e.as<Not>()) {
        s.text += "!";
        call("", {q->a}, s, ok, out);
    } else if (const Select *q = e.as<Select>()) {
        call("Halide::select", {q->condition, q->true_value, q->false_value}, s, ok, out);
    } else if (const Call *c = e.as<Call>()) {
        print_call(c, s, ok, out);
    } else {
        ok = false;
    }
}

}  // namespace

ExprSource expr_source(const Expr &e, const std::function<std::string(const std::string &)> &output_buffer) {
    ExprSource s;
    bool ok = e.defined();
    // (Lets as the values they name.)
    if (ok) print(substitute_in_all_lets(e), s, ok, output_buffer);
    return ok ? s : ExprSource{};
}

}  // namespace solder
