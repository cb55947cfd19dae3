#include "apps/app_pipeline.h"
#include "lang/lang.h"

namespace solder {

BuiltPipeline layernorm_pipeline(const AppIO &io) {
    using namespace lang;
    Graph g;
    auto in = lang_inputs(g, io);
    return lang_pipeline("layernorm", io, in, {layer_norm(in[0], &in[1], &in[2], 1e-5)});
}

}  // namespace solder
