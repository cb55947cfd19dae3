#include "lang/tensor.h"

#include "lang/bf16_expr.h"

namespace solder::lang {
using namespace Halide;

static std::vector<Expr> reversed(const std::vector<Expr> &idx) { return {idx.rbegin(), idx.rend()}; }

Expr Tensor::stored(const std::vector<Expr> &idx) const {
    if (int(idx.size()) != rank())
        throw LangError(name(), "indexed with " + std::to_string(idx.size()) + " indices but has rank " +
                                    std::to_string(rank()));
    if (rank() == 0) return param ? (*param)() : func();
    return param ? (*param)(reversed(idx)) : func(reversed(idx));
}

Expr Tensor::value(const std::vector<Expr> &idx) const {
    Expr s = stored(idx);
    if (dtype == DType::BF16) return bf16_to_f32(s);
    if (dtype == DType::F16) return Halide::cast<float>(s);
    return s;
}

const std::string &Tensor::name() const { return func.name(); }

Type storage_type(DType t) {
    switch (t) {
    case DType::F32: return Float(32);
    case DType::F16: return Float(16);
    case DType::I32: return Int(32);
    case DType::I64: return Int(64);
    case DType::BF16: return UInt(16);
    case DType::U8: return UInt(8);
    case DType::U16: return UInt(16);
    case DType::I8: return Int(8);
    case DType::I16: return Int(16);
    case DType::F64: return Float(64);
    }
    return Float(32);
}

Type compute_type(DType t) { return (t == DType::BF16 || t == DType::F16) ? Float(32) : storage_type(t); }

Expr encode(Expr v, DType t) {
    if (t == DType::BF16) return f32_to_bf16(Halide::cast<float>(v));
    return cast(storage_type(t), v);
}

// Named from the innermost (d0 is Halide's dim 0 in every Func): reductions that keep the same
// inner dims of one tensor then share loop names, which compute_with needs to fuse their loops.
std::vector<Var> axis_vars(int rank) {
    std::vector<Var> v;
    for (int i = 0; i < rank; i++) v.emplace_back("d" + std::to_string(rank - 1 - i));
    return v;
}

std::vector<Expr> as_exprs(const std::vector<Var> &v) { return {v.begin(), v.end()}; }

std::vector<Var> halide_order(std::vector<Var> v) { return {v.rbegin(), v.rend()}; }

Tensor define(Graph *g, const std::string &op, const Shape &shape, DType dtype, const std::vector<Var> &vars,
              const Expr &value) {
    Tensor t;
    t.func = Func(g->fresh_name(op));
    std::vector<Var> args = halide_order(vars);
    t.func(args) = encode(value, dtype);
    t.shape = shape;
    t.dtype = dtype;
    t.graph = g;
    return t;
}

Graph *graph_of(const std::string &op, std::initializer_list<const Tensor *> ts) {
    Graph *g = nullptr;
    for (auto *t : ts) {
        if (!t->graph) throw LangError(op, "operand is an empty Tensor (made outside a Graph)");
        if (g && t->graph != g) throw LangError(op, "operands belong to different Graphs");
        g = t->graph;
    }
    return g;
}

int normalize_axis(const std::string &op, int axis, int rank) {
    int a = axis < 0 ? axis + rank : axis;
    if (a < 0 || a >= rank)
        throw LangError(op, "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    return a;
}

void set_estimates(Func f, const Shape &shape) {
    Region r;
    for (auto it = shape.rbegin(); it != shape.rend(); ++it) r.push_back(Range(0, int(*it)));
    f.set_estimates(r);
}

void declare_dense(OutputImageParam p, const Shape &shape) {
    const int r = int(shape.size());
    int64_t stride = 1;
    for (int i = 0; i < r; i++) {
        const int64_t extent = shape[r - 1 - i];
        p.dim(i).set_bounds(0, int(extent)).set_stride(int(stride));
        stride *= extent;
    }
    p.set_host_alignment(16);
}

Tensor Graph::input(const std::string &name, DType dtype, const Shape &shape) {
    for (auto d : shape)
        if (d <= 0) throw LangError("input", "'" + name + "' has a non-positive extent in shape " + shape_str(shape));
    for (auto &t : inputs_)
        if (t.param->name() == name) throw LangError("input", "an input named '" + name + "' already exists");
    Tensor t;
    t.param = ImageParam(storage_type(dtype), int(shape.size()), name);
    int r = int(shape.size());
    for (int i = 0; i < r; i++) t.param->dim(i).set_estimate(0, int(shape[r - 1 - i]));
    declare_dense(*t.param, shape);
    t.func = Func(*t.param);
    t.shape = shape;
    t.dtype = dtype;
    t.graph = this;
    inputs_.push_back(t);
    return t;
}

Tensor Graph::wrap(const Func &f, DType dtype, const Shape &shape) {
    if (f.defined() && f.dimensions() != int(shape.size()))
        throw LangError("wrap", "Func '" + f.name() + "' has " + std::to_string(f.dimensions()) +
                                    " dimensions but the shape " + shape_str(shape) + " has " +
                                    std::to_string(shape.size()));
    Tensor t;
    t.func = f;
    t.shape = shape;
    t.dtype = dtype;
    t.graph = this;
    return t;
}

std::string Graph::fresh_name(const std::string &op) { return op + "_" + std::to_string(counter_++); }

}  // namespace solder::lang
