#include "apps/app_pipeline.h"

namespace solder {

BuiltPipeline embedding_gather_pipeline(const AppIO &io) {
    using namespace Halide;
    Var d("d"), t("t"), b("b");
    ImageParam tokens = image_input(io.inputs[0]), table = image_input(io.inputs[1]), pos = image_input(io.inputs[2]);
    // The id is clamped to the table's rows: the gather's footprint is then known to be the table.
    Func row("row"), out("out");
    row(t, b) = clamp(tokens(t, b), 0, table.dim(1).extent() - 1);
    out(d, t, b) = table(d, row(t, b)) + pos(d, t);
    lang::set_estimates(out, io.outputs[0].shape);
    BuiltPipeline p;
    p.inputs = {tokens, table, pos};
    p.outputs = {out};
    return p;
}

}  // namespace solder
