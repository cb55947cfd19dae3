// The tensor layer: a Tensor is a pure Halide Func with a shape and an element type. Ops build new
// Funcs from old ones and never schedule anything: placement is the auto-scheduler's job.
//
// Axis order: shapes are row-major (last axis contiguous, like PyTorch). Halide's dimension 0 is
// the innermost, so a Tensor's Func takes its indices in reverse: Func(i_last, ..., i_0).
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "Halide.h"
#include "core/types.h"
#include "lang/error.h"

namespace solder::lang {

using solder::DType;
using solder::Shape;

class Graph;

struct Tensor {
    Halide::Func func;                        // storage values (BF16 as uint16 bits)
    std::optional<Halide::ImageParam> param;  // set for graph inputs: calls go to the image
    Shape shape;
    DType dtype = DType::F32;
    Graph *graph = nullptr;

    int rank() const { return int(shape.size()); }
    // The stored value at tensor-order indices (one per axis, outermost first).
    Halide::Expr stored(const std::vector<Halide::Expr> &idx) const;
    // The value as ops compute with it: BF16 and F16 decoded to f32, others as stored.
    Halide::Expr value(const std::vector<Halide::Expr> &idx) const;
    const std::string &name() const;
};

// Owns naming and the list of inputs; every op's result belongs to its operands' graph.
class Graph {
public:
    Tensor input(const std::string &name, DType dtype, const Shape &shape);
    // A tensor over an existing Func (a generator's Input, say): values in `dtype`'s storage type.
    Tensor wrap(const Halide::Func &f, DType dtype, const Shape &shape);
    std::string fresh_name(const std::string &op);
    const std::vector<Tensor> &inputs() const { return inputs_; }

private:
    int counter_ = 0;
    std::vector<Tensor> inputs_;
};

// Helpers shared by the op files.
Halide::Type compute_type(DType t);  // f32 for BF16/F16, the storage type otherwise
Halide::Type storage_type(DType t);
Halide::Expr encode(Halide::Expr v, DType t);  // compute value -> stored value (BF16 rounded)
std::vector<Halide::Var> axis_vars(int rank);  // tensor order: d0 (outermost) .. d{r-1}
std::vector<Halide::Expr> as_exprs(const std::vector<Halide::Var> &v);
std::vector<Halide::Var> halide_order(std::vector<Halide::Var> v);  // reversed for Func args
// Makes a Tensor whose value at tensor-order index `vars` is `value` (a compute-type Expr).
Tensor define(Graph *g, const std::string &op, const Shape &shape, DType dtype, const std::vector<Halide::Var> &vars,
              const Halide::Expr &value);
Graph *graph_of(const std::string &op, std::initializer_list<const Tensor *> ts);
int normalize_axis(const std::string &op, int axis, int rank);
// Sets Halide estimates on a Func from a row-major shape (for pipeline outputs).
void set_estimates(Halide::Func f, const Shape &shape);
// Declares a tensor buffer dense, row-major, starting at 0 and 16-byte aligned (what the tensor layer
// creates and passes): with mins, extents and strides known, Halide can prove that a vector of
// neighbours along a row starts on a 16-byte boundary and emit one wide load or store for it
// (without it, every bf16 element was its own 2-byte access on CUDA). Halide checks it at run time.
void declare_dense(Halide::OutputImageParam p, const Shape &shape);

}  // namespace solder::lang
