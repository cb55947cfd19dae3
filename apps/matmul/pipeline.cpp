#include "apps/app_pipeline.h"

namespace solder {

// C = A B as Halide users write it: an update summing over an RDom whose extent is A's.
BuiltPipeline matmul_pipeline(const AppIO &io) {
    using namespace Halide;
    Var i("i"), j("j");
    ImageParam a = image_input(io.inputs[0]), b = image_input(io.inputs[1]);
    RDom k(0, a.dim(0).extent(), "k");
    Func c("matmul");
    c(i, j) = 0.0f;
    c(i, j) += a(k, j) * b(i, k);
    lang::set_estimates(c, io.outputs[0].shape);
    BuiltPipeline p;
    p.inputs = {a, b};
    p.outputs = {c};
    return p;
}

}  // namespace solder
