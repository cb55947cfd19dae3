#include "apps/app_pipeline.h"

namespace solder {

BuiltPipeline layernorm_bwd_pipeline(const AppIO &io) {
    using namespace Halide;
    Var c("c"), r("r");
    ImageParam x = image_input(io.inputs[0]), dy = image_input(io.inputs[1]), gamma = image_input(io.inputs[2]);
    Expr C = x.dim(0).extent(), n = cast<float>(C);
    RDom k(0, C, "k"), rows(0, x.dim(1).extent(), "rows");
    Func mean("mean"), var("var"), rstd("rstd"), xhat("xhat"), g("g"), mean_g("mean_g"), mean_gx("mean_gx");
    Func dx("dx"), dgamma("dgamma"), dbeta("dbeta");
    mean(r) = sum(x(k, r)) / n;
    var(r) = sum((x(k, r) - mean(r)) * (x(k, r) - mean(r))) / n;
    rstd(r) = 1.0f / sqrt(var(r) + 1e-5f);
    xhat(c, r) = (x(c, r) - mean(r)) * rstd(r);
    g(c, r) = dy(c, r) * gamma(c);
    mean_g(r) = sum(g(k, r)) / n;
    mean_gx(r) = sum(g(k, r) * xhat(k, r)) / n;
    dx(c, r) = rstd(r) * (g(c, r) - mean_g(r) - xhat(c, r) * mean_gx(r));
    dgamma(c) = sum(dy(c, rows) * xhat(c, rows));
    dbeta(c) = sum(dy(c, rows));
    lang::set_estimates(dx, io.outputs[0].shape);
    lang::set_estimates(dgamma, io.outputs[1].shape);
    lang::set_estimates(dbeta, io.outputs[2].shape);
    BuiltPipeline p;
    p.inputs = {x, dy, gamma};
    p.outputs = {dx, dgamma, dbeta};
    return p;
}

}  // namespace solder
