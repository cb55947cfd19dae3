// Composite ops, written only with the primitives: the planner sees their parts, so it can fuse
// across them (nothing here is a hand-written kernel). Math is f32; the result has x's type.
#include "lang/ops.h"

namespace solder::lang {

namespace {
Tensor as_f32(const Tensor &x) { return x.dtype == DType::F32 ? x : cast(x, DType::F32); }
Tensor as_type(const Tensor &x, DType t) { return x.dtype == t ? x : cast(x, t); }
void check_affine(const std::string &op, const Tensor &x, const Tensor *p, const char *what) {
    if (!p) return;
    if (p->rank() != 1 || p->shape[0] != x.shape.back())
        throw LangError(op, std::string(what) + " has shape " + shape_str(p->shape) + " but must be (" +
                                std::to_string(x.shape.back()) + ") to match the last axis of " + shape_str(x.shape));
}
void check_float(const std::string &op, const Tensor &x) {
    if (x.rank() == 0) throw LangError(op, "needs a tensor of rank >= 1");
    if (!dtype_is_float(x.dtype)) throw LangError(op, std::string("needs a float tensor, got ") + dtype_name(x.dtype));
}
}  // namespace

Tensor layer_norm(const Tensor &x, const Tensor *weight, const Tensor *bias, double eps) {
    check_float("layer_norm", x);
    check_affine("layer_norm", x, weight, "weight");
    check_affine("layer_norm", x, bias, "bias");
    Tensor xf = as_f32(x);
    Tensor mu = mean(xf, {-1}, true);
    Tensor xc = sub(xf, mu);
    Tensor var = mean(mul(xc, xc), {-1}, true);
    Tensor y = mul(xc, rsqrt(add(var, eps)));
    if (weight) y = mul(y, as_f32(*weight));
    if (bias) y = add(y, as_f32(*bias));
    return as_type(y, x.dtype);
}

Tensor rms_norm(const Tensor &x, const Tensor *weight, double eps) {
    check_float("rms_norm", x);
    check_affine("rms_norm", x, weight, "weight");
    Tensor xf = as_f32(x);
    Tensor y = mul(xf, rsqrt(add(mean(mul(xf, xf), {-1}, true), eps)));
    if (weight) y = mul(y, as_f32(*weight));
    return as_type(y, x.dtype);
}

Tensor softmax(const Tensor &x, int axis) {
    check_float("softmax", x);
    int ax = normalize_axis("softmax", axis, x.rank());
    Tensor xf = as_f32(x);
    Tensor e = exp(sub(xf, max(xf, {ax}, true)));
    // Times the reciprocal of the row's sum, not divided by it: the reciprocal is the same for the
    // whole row, so it is computed once per row instead of an IEEE division per element (an
    // instruction sequence of its own on a GPU: softmax ran instruction-bound on the H100).
    return as_type(mul(e, reciprocal(sum(e, {ax}, true))), x.dtype);
}

}  // namespace solder::lang
