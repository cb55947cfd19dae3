#include "apps/app_pipeline.h"

namespace solder {

BuiltPipeline depthwise_conv_pipeline(const AppIO &io) {
    using namespace Halide;
    Var x("x"), y("y"), c("c"), n("n");
    ImageParam in = image_input(io.inputs[0]), dw_w = image_input(io.inputs[1]), dw_b = image_input(io.inputs[2]),
               pw_w = image_input(io.inputs[3]), pw_b = image_input(io.inputs[4]);
    Func padded = BoundaryConditions::constant_exterior(in, 0.0f, {{0, in.dim(0).extent()}, {0, in.dim(1).extent()}});

    // Depthwise: each channel with its own 3x3 filter (zero padded), bias, ReLU.
    Expr kw = dw_w.dim(0).extent(), kh = dw_w.dim(1).extent();
    RDom k(0, kw, 0, kh, "k");
    Func dw("dw"), dw_relu("dw_relu");
    dw(x, y, c, n) = dw_b(c);
    dw(x, y, c, n) += dw_w(k.x, k.y, c) * padded(x + k.x - (kw - 1) / 2, y + k.y - (kh - 1) / 2, c, n);
    dw_relu(x, y, c, n) = max(dw(x, y, c, n), 0.0f);

    // Pointwise: a 1x1 convolution over the channels, bias, ReLU.
    RDom ci(0, in.dim(2).extent(), "ci");
    Func pw("pw"), out("out");
    pw(x, y, c, n) = pw_b(c);
    pw(x, y, c, n) += pw_w(ci, c) * dw_relu(x, y, ci, n);
    out(x, y, c, n) = max(pw(x, y, c, n), 0.0f);

    lang::set_estimates(out, io.outputs[0].shape);
    BuiltPipeline b;
    b.inputs = {in, dw_w, dw_b, pw_w, pw_b};
    b.outputs = {out};
    return b;
}

}  // namespace solder
