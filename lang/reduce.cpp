// Reductions over chosen axes: a pure initial value and one update over an RDom.
// bf16/f16 accumulate in f32 and ints in i64 (as PyTorch does), then the result is stored back.
#include <algorithm>
#include <limits>

#include "lang/ops.h"

namespace solder::lang {
using namespace Halide;

namespace {

enum class Kind { Sum, Max };

std::vector<int> normalize_axes(const std::string &op, std::vector<int> axes, int rank) {
    if (axes.empty()) throw LangError(op, "needs at least one axis");
    for (auto &a : axes) a = normalize_axis(op, a, rank);
    std::sort(axes.begin(), axes.end());
    if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) throw LangError(op, "an axis is repeated");
    return axes;
}

Tensor reduce(const std::string &op, const Tensor &a, std::vector<int> axes_in, bool keepdim, Kind kind,
              DType &acc_dtype) {
    Graph *g = graph_of(op, {&a});
    std::vector<int> axes = normalize_axes(op, axes_in, a.rank());
    auto reduced = [&](int d) { return std::find(axes.begin(), axes.end(), d) != axes.end(); };

    Shape out;
    for (int d = 0; d < a.rank(); d++)
        if (!reduced(d))
            out.push_back(a.shape[d]);
        else if (keepdim)
            out.push_back(1);
    auto v = axis_vars(int(out.size()));

    // RDom dimension 0 is the innermost loop: list the reduced axes innermost first. Each RVar is
    // named after the operand's Halide dim it walks ("r1": dim 1), so reductions over the same
    // tensor walk it under the same loop names (their split-K partials can then be fused,
    // schedules/shared_split_k/shared_split_k.h). Halide qualifies them by Func and stage when lowering.
    std::vector<Internal::ReductionVariable> rvars;
    for (auto it = axes.rbegin(); it != axes.rend(); ++it)
        rvars.push_back({"r" + std::to_string(a.rank() - 1 - *it), 0, int(a.shape[*it])});
    RDom r{Internal::ReductionDomain(rvars)};

    std::vector<Expr> idx;
    for (int d = 0, o = 0; d < a.rank(); d++) {
        if (reduced(d)) {
            int k = int(std::find(axes.begin(), axes.end(), d) - axes.begin());  // axes[k] is r[n-1-k]
            idx.push_back(r[int(axes.size()) - 1 - k]);
            if (keepdim) o++;
        } else {
            idx.push_back(v[o++]);
        }
    }

    acc_dtype = dtype_is_float(a.dtype) ? DType::F32 : DType::I64;
    if (kind == Kind::Max) acc_dtype = dtype_is_float(a.dtype) ? DType::F32 : a.dtype;
    Type at = storage_type(acc_dtype);
    Expr x = cast(at, a.value(idx));

    Tensor acc;
    acc.func = Func(g->fresh_name(op));
    std::vector<Var> args = halide_order(v);
    std::vector<Expr> eargs(args.begin(), args.end());
    if (kind == Kind::Sum) {
        acc.func(args) = Halide::Internal::make_zero(at);
        acc.func(eargs) += x;
    } else {
        acc.func(args) = at.min();
        acc.func(eargs) = Halide::max(acc.func(eargs), x);
    }
    acc.shape = out;
    acc.dtype = acc_dtype;
    acc.graph = g;
    return acc;
}

}  // namespace

Tensor sum(const Tensor &a, std::vector<int> axes, bool keepdim) {
    DType acc_t;
    Tensor s = reduce("sum", a, axes, keepdim, Kind::Sum, acc_t);
    // PyTorch: sum of a float tensor keeps its type, sum of ints is i64.
    return (dtype_is_float(a.dtype) && a.dtype != acc_t) ? cast(s, a.dtype) : s;
}

Tensor max(const Tensor &a, std::vector<int> axes, bool keepdim) {
    DType acc_t;
    Tensor m = reduce("max", a, axes, keepdim, Kind::Max, acc_t);
    return a.dtype != acc_t ? cast(m, a.dtype) : m;
}

Tensor mean(const Tensor &a, std::vector<int> axes, bool keepdim) {
    DType acc_t;
    Tensor s = reduce("mean", a, axes, keepdim, Kind::Sum, acc_t);
    int64_t count = shape_numel(a.shape) / std::max<int64_t>(1, shape_numel(s.shape));
    Tensor m = div(s, double(count));
    return (dtype_is_float(a.dtype) && a.dtype != m.dtype) ? cast(m, a.dtype) : m;
}

}  // namespace solder::lang
