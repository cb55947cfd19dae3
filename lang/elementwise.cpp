// Elementwise ops: NumPy broadcasting, type promotion, and math in the compute type.
#include <cmath>

#include "lang/ops.h"

namespace solder::lang {
using namespace Halide;

namespace {

int rank_of_type(DType t) {  // promotion lattice
    switch (t) {
    case DType::U8:
    case DType::I8: return 0;
    case DType::U16:
    case DType::I16: return 1;
    case DType::I32: return 2;
    case DType::I64: return 3;
    case DType::BF16: return 4;
    case DType::F16: return 4;
    case DType::F32: return 5;
    case DType::F64: return 6;
    }
    return 0;
}

DType promote(DType a, DType b) {
    if (a == b) return a;
    if ((a == DType::BF16 && b == DType::F16) || (a == DType::F16 && b == DType::BF16)) return DType::F32;
    return rank_of_type(a) >= rank_of_type(b) ? a : b;
}

Shape broadcast_shapes(const std::string &op, const Shape &a, const Shape &b) {
    size_t r = std::max(a.size(), b.size());
    Shape out(r);
    for (size_t i = 0; i < r; i++) {
        int64_t ea = i < r - a.size() ? 1 : a[i - (r - a.size())];
        int64_t eb = i < r - b.size() ? 1 : b[i - (r - b.size())];
        if (ea != eb && ea != 1 && eb != 1)
            throw LangError(op, "shapes " + shape_str(a) + " and " + shape_str(b) + " cannot be broadcast (axis " +
                                    std::to_string(int(i) - int(r)) + ": " + std::to_string(ea) + " vs " +
                                    std::to_string(eb) + ")");
        out[i] = std::max(ea, eb);
    }
    return out;
}

// Index of `a` when broadcast to `out`, given the out-tensor's indices.
std::vector<Expr> broadcast_index(const Tensor &a, const Shape &out, const std::vector<Var> &v) {
    std::vector<Expr> idx;
    size_t off = out.size() - a.shape.size();
    for (size_t j = 0; j < a.shape.size(); j++)
        idx.push_back(a.shape[j] == 1 && out[j + off] != 1 ? Expr(0) : Expr(v[j + off]));
    return idx;
}

Expr to_compute(Expr v, DType t) { return cast(compute_type(t), v); }

template<typename F>
Tensor binary(const std::string &op, const Tensor &a, const Tensor &b, F f, bool float_result = false) {
    Graph *g = graph_of(op, {&a, &b});
    Shape out = broadcast_shapes(op, a.shape, b.shape);
    DType t = promote(a.dtype, b.dtype);
    if (float_result && !dtype_is_float(t)) t = DType::F32;
    auto v = axis_vars(int(out.size()));
    Expr x = to_compute(a.value(broadcast_index(a, out, v)), t);
    Expr y = to_compute(b.value(broadcast_index(b, out, v)), t);
    return define(g, op, out, t, v, f(x, y));
}

// A scalar takes the tensor's type; a fractional scalar with an int tensor makes it f32.
DType scalar_result_type(const Tensor &a, double s) {
    if (!dtype_is_float(a.dtype) && s != std::floor(s)) return DType::F32;
    return a.dtype;
}

template<typename F>
Tensor with_scalar(const std::string &op, const Tensor &a, double s, F f, bool float_result = false) {
    Graph *g = graph_of(op, {&a});
    DType t = scalar_result_type(a, s);
    if (float_result && !dtype_is_float(t)) t = DType::F32;
    auto v = axis_vars(a.rank());
    Type ct = compute_type(t);
    Expr x = cast(ct, a.value(as_exprs(v)));
    Expr c = ct.is_float() ? Expr(float(s)) : cast(ct, Expr(int64_t(s)));
    return define(g, op, a.shape, t, v, f(x, c));
}

template<typename F> Tensor unary(const std::string &op, const Tensor &a, F f, bool float_result = true) {
    Graph *g = graph_of(op, {&a});
    DType t = (float_result && !dtype_is_float(a.dtype)) ? DType::F32 : a.dtype;
    auto v = axis_vars(a.rank());
    Expr x = cast(compute_type(t), a.value(as_exprs(v)));
    return define(g, op, a.shape, t, v, f(x));
}

}  // namespace

Tensor add(const Tensor &a, const Tensor &b) {
    return binary("add", a, b, [](Expr x, Expr y) { return x + y; });
}
Tensor sub(const Tensor &a, const Tensor &b) {
    return binary("sub", a, b, [](Expr x, Expr y) { return x - y; });
}
Tensor mul(const Tensor &a, const Tensor &b) {
    return binary("mul", a, b, [](Expr x, Expr y) { return x * y; });
}
Tensor div(const Tensor &a, const Tensor &b) {
    return binary(
        "div", a, b, [](Expr x, Expr y) { return x / y; }, true);
}
Tensor pow(const Tensor &a, const Tensor &b) {
    return binary(
        "pow", a, b, [](Expr x, Expr y) { return Halide::pow(x, y); }, true);
}
Tensor maximum(const Tensor &a, const Tensor &b) {
    return binary("maximum", a, b, [](Expr x, Expr y) { return Halide::max(x, y); });
}

Tensor add(const Tensor &a, double s) {
    return with_scalar("add", a, s, [](Expr x, Expr c) { return x + c; });
}
Tensor sub(const Tensor &a, double s) {
    return with_scalar("sub", a, s, [](Expr x, Expr c) { return x - c; });
}
Tensor rsub(double s, const Tensor &a) {
    return with_scalar("rsub", a, s, [](Expr x, Expr c) { return c - x; });
}
Tensor mul(const Tensor &a, double s) {
    return with_scalar("mul", a, s, [](Expr x, Expr c) { return x * c; });
}
Tensor div(const Tensor &a, double s) {
    if (s == 0) throw LangError("div", "division by the scalar 0");
    return with_scalar(
        "div", a, s, [](Expr x, Expr c) { return x / c; }, true);
}
Tensor pow(const Tensor &a, double s) {
    // Small integer powers are products: exact, cheap, and defined for negative bases.
    if (s == 2.0)
        return with_scalar(
            "pow", a, s, [](Expr x, Expr) { return x * x; }, true);
    if (s == 3.0)
        return with_scalar(
            "pow", a, s, [](Expr x, Expr) { return x * x * x; }, true);
    return with_scalar(
        "pow", a, s, [](Expr x, Expr c) { return Halide::pow(x, c); }, true);
}
Tensor neg(const Tensor &a) {
    return unary(
        "neg", a, [](Expr x) { return -x; }, false);
}
Tensor exp(const Tensor &a) {
    return unary("exp", a, [](Expr x) { return Halide::exp(x); });
}
Tensor tanh(const Tensor &a) {
    return unary("tanh", a, [](Expr x) { return Halide::tanh(x); });
}
Tensor sqrt(const Tensor &a) {
    return unary("sqrt", a, [](Expr x) { return Halide::sqrt(x); });
}
Tensor rsqrt(const Tensor &a) {
    return unary("rsqrt", a, [](Expr x) { return 1.0f / Halide::sqrt(x); });
}
Tensor reciprocal(const Tensor &a) {
    return unary("reciprocal", a, [](Expr x) { return 1.0f / x; });
}
Tensor relu(const Tensor &a) {
    return unary(
        "relu", a, [](Expr x) { return Halide::max(x, Halide::Internal::make_zero(x.type())); }, false);
}
Tensor gelu_tanh(const Tensor &a) {
    return unary("gelu", a, [](Expr x) {
        const float k = 0.7978845608028654f;  // sqrt(2/pi)
        return 0.5f * x * (1.0f + Halide::tanh(k * (x + 0.044715f * x * x * x)));
    });
}

Tensor cast(const Tensor &a, DType to) {
    Graph *g = graph_of("cast", {&a});
    auto v = axis_vars(a.rank());
    Expr x = a.value(as_exprs(v));
    // Float -> int truncates toward zero (C and PyTorch semantics); int -> int wraps.
    return define(g, "cast", a.shape, to, v, cast(compute_type(to), x));
}

}  // namespace solder::lang
