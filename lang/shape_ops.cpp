// Shape ops: broadcast, expand, (un)squeeze, slice, stack and cat. All are index remappings:
// they add no arithmetic, so the planner inlines them freely.
#include <algorithm>

#include "lang/ops.h"

namespace solder::lang {
using namespace Halide;

namespace {
Tensor remap(const std::string &op, const Tensor &a, const Shape &out, const std::vector<Var> &v,
             const std::vector<Expr> &idx) {
    Graph *g = graph_of(op, {&a});
    return define(g, op, out, a.dtype, v, a.value(idx));
}
}  // namespace

Tensor broadcast_in_dim(const Tensor &a, const Shape &out, const std::vector<int> &dims) {
    const std::string op = "broadcast_in_dim";
    if (int(dims.size()) != a.rank())
        throw LangError(op, "dims has " + std::to_string(dims.size()) + " entries but the operand has rank " +
                                std::to_string(a.rank()));
    auto v = axis_vars(int(out.size()));
    std::vector<Expr> idx;
    int prev = -1;
    for (int i = 0; i < a.rank(); i++) {
        int d = dims[i];
        if (d < 0 || d >= int(out.size()))
            throw LangError(op, "dims[" + std::to_string(i) + "] = " + std::to_string(d) +
                                    " is out of range for output rank " + std::to_string(out.size()));
        if (d <= prev) throw LangError(op, "dims must be strictly increasing");
        prev = d;
        if (a.shape[i] != out[d] && a.shape[i] != 1)
            throw LangError(op, "operand axis " + std::to_string(i) + " has extent " + std::to_string(a.shape[i]) +
                                    " but output axis " + std::to_string(d) + " has " + std::to_string(out[d]));
        idx.push_back(a.shape[i] == 1 && out[d] != 1 ? Expr(0) : Expr(v[d]));
    }
    return remap(op, a, out, v, idx);
}

Tensor expand(const Tensor &a, const Shape &out) {
    if (out.size() < a.shape.size())
        throw LangError("expand", "cannot expand " + shape_str(a.shape) + " to fewer axes " + shape_str(out));
    std::vector<int> dims;
    size_t off = out.size() - a.shape.size();
    for (size_t i = 0; i < a.shape.size(); i++) {
        if (a.shape[i] != 1 && a.shape[i] != out[i + off])
            throw LangError("expand", "cannot expand " + shape_str(a.shape) + " to " + shape_str(out) + " (axis " +
                                          std::to_string(i) + ")");
        dims.push_back(int(i + off));
    }
    return broadcast_in_dim(a, out, dims);
}

Tensor unsqueeze(const Tensor &a, int axis) {
    int r = a.rank() + 1;
    int ax = normalize_axis("unsqueeze", axis, r);
    Shape out = a.shape;
    out.insert(out.begin() + ax, 1);
    auto v = axis_vars(r);
    std::vector<Expr> idx;
    for (int i = 0; i < r; i++)
        if (i != ax) idx.push_back(v[i]);
    return remap("unsqueeze", a, out, v, idx);
}

Tensor squeeze(const Tensor &a, int axis) {
    int ax = normalize_axis("squeeze", axis, a.rank());
    if (a.shape[ax] != 1)
        throw LangError("squeeze",
                        "axis " + std::to_string(axis) + " has extent " + std::to_string(a.shape[ax]) + ", not 1");
    Shape out = a.shape;
    out.erase(out.begin() + ax);
    auto v = axis_vars(int(out.size()));
    std::vector<Expr> idx;
    for (int i = 0, j = 0; i < a.rank(); i++) idx.push_back(i == ax ? Expr(0) : Expr(v[j++]));
    return remap("squeeze", a, out, v, idx);
}

Tensor slice(const Tensor &a, int axis, int64_t start, int64_t stop, int64_t step) {
    int ax = normalize_axis("slice", axis, a.rank());
    int64_t n = a.shape[ax];
    if (step <= 0) throw LangError("slice", "step must be positive, got " + std::to_string(step));
    if (start < 0 || stop > n || start >= stop)
        throw LangError("slice", "range [" + std::to_string(start) + ", " + std::to_string(stop) +
                                     ") is empty or outside axis " + std::to_string(axis) + " of extent " +
                                     std::to_string(n));
    Shape out = a.shape;
    out[ax] = (stop - start + step - 1) / step;
    auto v = axis_vars(a.rank());
    std::vector<Expr> idx = as_exprs(v);
    idx[ax] = int(start) + v[ax] * int(step);
    return remap("slice", a, out, v, idx);
}

Tensor select_index(const Tensor &a, int axis, int64_t index) {
    int ax = normalize_axis("select_index", axis, a.rank());
    if (index < 0 || index >= a.shape[ax])
        throw LangError("select_index", "index " + std::to_string(index) + " is outside axis " + std::to_string(axis) +
                                            " of extent " + std::to_string(a.shape[ax]));
    Shape out = a.shape;
    out.erase(out.begin() + ax);
    auto v = axis_vars(int(out.size()));
    std::vector<Expr> idx;
    for (int i = 0, j = 0; i < a.rank(); i++) idx.push_back(i == ax ? Expr(int(index)) : Expr(v[j++]));
    return remap("select_index", a, out, v, idx);
}

namespace {
// Joins tensors along `ax` of the output; piece i covers [offset_i, offset_i + extent_i).
Tensor join(const std::string &op, const std::vector<Tensor> &ts, const Shape &out, int ax,
            const std::vector<Tensor> &pieces_with_axis) {
    Graph *g = ts[0].graph;
    DType t = ts[0].dtype;
    auto v = axis_vars(int(out.size()));
    // A select chain from the last piece backwards: piece i where v[ax] < end_i.
    std::vector<int64_t> starts;
    int64_t off = 0;
    for (auto &p : pieces_with_axis) {
        starts.push_back(off);
        off += p.shape[ax];
    }
    Expr value;
    for (int i = int(pieces_with_axis.size()) - 1; i >= 0; i--) {
        std::vector<Expr> idx = as_exprs(v);
        // Clamp keeps every branch's index in bounds, so bounds inference never widens an input.
        idx[ax] = clamp(v[ax] - int(starts[i]), 0, int(pieces_with_axis[i].shape[ax]) - 1);
        Expr e = pieces_with_axis[i].value(idx);
        value = value.defined() ? select(v[ax] < int(starts[i] + pieces_with_axis[i].shape[ax]), e, value) : e;
    }
    return define(g, op, out, t, v, value);
}

void check_same(const std::string &op, const std::vector<Tensor> &ts, int skip_axis) {
    if (ts.empty()) throw LangError(op, "needs at least one tensor");
    for (size_t i = 0; i < ts.size(); i++) {
        graph_of(op, {&ts[0], &ts[i]});
        if (ts[i].dtype != ts[0].dtype)
            throw LangError(op, "tensor " + std::to_string(i) + " has type " + dtype_name(ts[i].dtype) +
                                    " but tensor 0 has " + dtype_name(ts[0].dtype));
        bool ok = ts[i].rank() == ts[0].rank();
        for (int d = 0; ok && d < ts[0].rank(); d++) ok = d == skip_axis || ts[i].shape[d] == ts[0].shape[d];
        if (!ok)
            throw LangError(op, "tensor " + std::to_string(i) + " has shape " + shape_str(ts[i].shape) +
                                    ", incompatible with tensor 0's " + shape_str(ts[0].shape));
    }
}
}  // namespace

Tensor stack(const std::vector<Tensor> &ts, int axis) {
    if (ts.empty()) throw LangError("stack", "needs at least one tensor");
    int ax = normalize_axis("stack", axis, ts[0].rank() + 1);
    check_same("stack", ts, -1);
    std::vector<Tensor> pieces;
    for (auto &t : ts) pieces.push_back(unsqueeze(t, ax));
    Shape out = pieces[0].shape;
    out[ax] = int64_t(ts.size());
    return join("stack", ts, out, ax, pieces);
}

Tensor cat(const std::vector<Tensor> &ts, int axis) {
    if (ts.empty()) throw LangError("cat", "needs at least one tensor");
    int ax = normalize_axis("cat", axis, ts[0].rank());
    check_same("cat", ts, ax);
    Shape out = ts[0].shape;
    out[ax] = 0;
    for (auto &t : ts) out[ax] += t.shape[ax];
    return join("cat", ts, out, ax, ts);
}

}  // namespace solder::lang
