#include "apps/app_pipeline.h"

namespace solder {

BuiltPipeline hist_equalize_pipeline(const AppIO &io) {
    using namespace Halide;
    Var x("x"), y("y"), i("i");
    ImageParam in = image_input(io.inputs[0]);
    Func hist("hist"), cdf("cdf"), out("out");
    RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
    hist(i) = 0;
    hist(cast<int>(in(r.x, r.y))) += 1;
    RDom b(1, 255, "b");
    cdf(i) = hist(i);
    cdf(b) = cdf(b - 1) + hist(b);
    Expr pixels = cast<float>(in.dim(0).extent() * in.dim(1).extent());
    out(x, y) = cast<uint8_t>(clamp(cast<float>(cdf(cast<int>(in(x, y)))) * 255.0f / pixels, 0.0f, 255.0f));
    lang::set_estimates(out, io.outputs[0].shape);
    BuiltPipeline p;
    p.inputs = {in};
    p.outputs = {out};
    return p;
}

}  // namespace solder
