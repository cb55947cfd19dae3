// The ops of the tensor layer. Every op checks its operands and throws LangError naming itself
// and the problem (bad shapes, bad axes); none schedules anything.
#pragma once
#include "lang/tensor.h"

namespace solder::lang {

// ---- elementwise (NumPy broadcasting; operands promoted: int < bf16/f16 < f32, i32 < i64) ----
Tensor add(const Tensor &a, const Tensor &b);
Tensor sub(const Tensor &a, const Tensor &b);
Tensor mul(const Tensor &a, const Tensor &b);
Tensor div(const Tensor &a, const Tensor &b);
Tensor pow(const Tensor &a, const Tensor &b);
Tensor maximum(const Tensor &a, const Tensor &b);
// With a scalar: the scalar takes the tensor's type (an int tensor with a fractional scalar
// becomes f32), as in PyTorch.
Tensor add(const Tensor &a, double s);
Tensor sub(const Tensor &a, double s);
Tensor rsub(double s, const Tensor &a);  // s - a
Tensor mul(const Tensor &a, double s);
Tensor div(const Tensor &a, double s);
Tensor pow(const Tensor &a, double s);
Tensor neg(const Tensor &a);
Tensor exp(const Tensor &a);
Tensor tanh(const Tensor &a);
Tensor sqrt(const Tensor &a);
Tensor rsqrt(const Tensor &a);
Tensor reciprocal(const Tensor &a);  // 1 / a
Tensor relu(const Tensor &a);
Tensor gelu_tanh(const Tensor &a);
Tensor cast(const Tensor &a, DType to);

inline Tensor operator+(const Tensor &a, const Tensor &b) { return add(a, b); }
inline Tensor operator-(const Tensor &a, const Tensor &b) { return sub(a, b); }
inline Tensor operator*(const Tensor &a, const Tensor &b) { return mul(a, b); }
inline Tensor operator/(const Tensor &a, const Tensor &b) { return div(a, b); }
inline Tensor operator+(const Tensor &a, double s) { return add(a, s); }
inline Tensor operator-(const Tensor &a, double s) { return sub(a, s); }
inline Tensor operator*(const Tensor &a, double s) { return mul(a, s); }
inline Tensor operator/(const Tensor &a, double s) { return div(a, s); }
inline Tensor operator+(double s, const Tensor &a) { return add(a, s); }
inline Tensor operator-(double s, const Tensor &a) { return rsub(s, a); }
inline Tensor operator*(double s, const Tensor &a) { return mul(a, s); }
inline Tensor operator-(const Tensor &a) { return neg(a); }

// ---- shape ----
// out axis dims[i] receives input axis i; input axes of extent 1 broadcast (XLA/nvFuser style).
Tensor broadcast_in_dim(const Tensor &a, const Shape &out_shape, const std::vector<int> &dims);
// PyTorch expand: new leading axes allowed, extent-1 axes broadcast, others must match.
Tensor expand(const Tensor &a, const Shape &out_shape);
Tensor unsqueeze(const Tensor &a, int axis);
Tensor squeeze(const Tensor &a, int axis);  // the axis must have extent 1
Tensor slice(const Tensor &a, int axis, int64_t start, int64_t stop, int64_t step = 1);
Tensor select_index(const Tensor &a, int axis, int64_t index);  // x[:, i, :] drops the axis
Tensor stack(const std::vector<Tensor> &ts, int axis);
Tensor cat(const std::vector<Tensor> &ts, int axis);

// ---- reductions (f32 accumulation for bf16/f16; ints sum in i64) ----
Tensor sum(const Tensor &a, std::vector<int> axes, bool keepdim = false);
Tensor max(const Tensor &a, std::vector<int> axes, bool keepdim = false);
Tensor mean(const Tensor &a, std::vector<int> axes, bool keepdim = false);

// ---- composites built from the primitives above (math in f32, result in the input's type) ----
Tensor layer_norm(const Tensor &x, const Tensor *weight = nullptr, const Tensor *bias = nullptr, double eps = 1e-5);
Tensor rms_norm(const Tensor &x, const Tensor *weight = nullptr, double eps = 1e-6);
Tensor softmax(const Tensor &x, int axis = -1);

}  // namespace solder::lang
