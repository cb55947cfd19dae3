#include "apps/app_pipeline.h"

namespace solder {

BuiltPipeline causal_softmax_pipeline(const AppIO &io) {
    using namespace Halide;
    Var k("k"), q("q"), b("b");
    ImageParam scores = image_input(io.inputs[0]);
    Param<float> scale = scalar_input<float>(io.scalars[0]);  // 1/sqrt(head_dim)
    RDom r(0, scores.dim(0).extent(), "r");
    // (Float(32).min() is -infinity.)
    Func masked("masked"), row_max("row_max"), e("e"), denom("denom"), probs("probs");
    masked(k, q, b) = select(k > q, Float(32).min(), scores(k, q, b) * scale);
    row_max(q, b) = maximum(masked(r, q, b));
    e(k, q, b) = exp(masked(k, q, b) - row_max(q, b));
    denom(q, b) = sum(e(r, q, b));
    probs(k, q, b) = e(k, q, b) / denom(q, b);
    lang::set_estimates(probs, io.outputs[0].shape);
    BuiltPipeline p;
    p.inputs = {scores};
    p.scalars = {scale};
    p.outputs = {probs};
    return p;
}

}  // namespace solder
