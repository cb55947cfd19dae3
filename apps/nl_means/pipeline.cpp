#include "apps/app_pipeline.h"

namespace solder {

BuiltPipeline nl_means_pipeline(const AppIO &io) {
    using namespace Halide;
    Var x("x"), y("y"), c("c"), dx("dx"), dy("dy");
    ImageParam in = image_input(io.inputs[0]);
    Param<int> patch_size = scalar_input<int>(io.scalars[0]), search_area = scalar_input<int>(io.scalars[1]);
    Param<float> h = scalar_input<float>(io.scalars[2]);
    Func clamped = BoundaryConditions::repeat_edge(in);

    // Squared RGB distance between pixel (x, y) and its neighbour at offset (dx, dy).
    Func diff("diff"), dist("dist"), weight("weight"), wsum("wsum"), num("num"), out("nl_means");
    Expr d2 = 0.0f;
    for (int ch = 0; ch < 3; ch++) {
        Expr e = clamped(x, y, ch) - clamped(x + dx, y + dy, ch);
        d2 = d2 + e * e;
    }
    diff(x, y, dx, dy) = d2;
    // Summed over the patches centred on the two pixels (a patch_size x patch_size window).
    Expr pr = patch_size / 2;
    RDom p(-pr, patch_size, -pr, patch_size, "p");
    dist(x, y, dx, dy) = sum(diff(x + p.x, y + p.y, dx, dy));
    // Mean squared difference per sample, against h^2.
    Expr per_sample = 1.0f / (3.0f * cast<float>(patch_size * patch_size) * h * h);
    weight(x, y, dx, dy) = exp(-dist(x, y, dx, dy) * per_sample);

    // The weighted mean of the neighbours over the search window.
    Expr sr = search_area / 2;
    RDom s(-sr, search_area, -sr, search_area, "s");
    wsum(x, y) = sum(weight(x, y, s.x, s.y));
    num(x, y, c) = sum(weight(x, y, s.x, s.y) * clamped(x + s.x, y + s.y, c));
    out(x, y, c) = num(x, y, c) / wsum(x, y);

    lang::set_estimates(out, io.outputs[0].shape);
    BuiltPipeline b;
    b.inputs = {in};
    b.outputs = {out};
    b.scalars = {patch_size, search_area, h};
    return b;
}

}  // namespace solder
