#include "apps/app_pipeline.h"

namespace solder {

BuiltPipeline group_norm_pipeline(const AppIO &io) {
    using namespace Halide;
    Var w("w"), h("h"), c("c"), n("n"), g("g");
    ImageParam x = image_input(io.inputs[0]), gamma = image_input(io.inputs[1]), beta = image_input(io.inputs[2]);
    Param<int> groups = scalar_input<int>(io.scalars[0]);
    Expr cpg = x.dim(2).extent() / groups;
    RDom r(0, x.dim(0).extent(), 0, x.dim(1).extent(), 0, cpg, "r");
    Expr count = cast<float>(x.dim(0).extent() * x.dim(1).extent() * cpg);
    Func mean("mean"), var("var"), rstd("rstd"), out("out");
    mean(g, n) = sum(x(r.x, r.y, g * cpg + r.z, n)) / count;
    Expr d = x(r.x, r.y, g * cpg + r.z, n) - mean(g, n);
    var(g, n) = sum(d * d) / count;
    rstd(g, n) = 1.0f / sqrt(var(g, n) + 1e-5f);
    Expr grp = c / cpg;
    out(w, h, c, n) = (x(w, h, c, n) - mean(grp, n)) * rstd(grp, n) * gamma(c) + beta(c);
    lang::set_estimates(out, io.outputs[0].shape);
    BuiltPipeline p;
    p.inputs = {x, gamma, beta};
    p.scalars = {groups};
    p.outputs = {out};
    return p;
}

}  // namespace solder
