#include "apps/app_pipeline.h"
#include "lang/lang.h"

namespace solder {

BuiltPipeline nnc_cast_add_mul_pipeline(const AppIO &io) {
    using namespace lang;
    Graph g;
    auto in = lang_inputs(g, io);
    Tensor t = cast(in[0], DType::I32);
    Tensor out = cast((t + in[1]) * in[2], DType::I64);
    return lang_pipeline("nnc_cast_add_mul", io, in, {out});
}

}  // namespace solder
