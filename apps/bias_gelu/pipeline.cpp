#include "apps/app_pipeline.h"
#include "lang/lang.h"

namespace solder {

BuiltPipeline bias_gelu_pipeline(const AppIO &io) {
    using namespace lang;
    Graph g;
    auto in = lang_inputs(g, io);
    return lang_pipeline("bias_gelu", io, in, {gelu_tanh(in[0] + in[1])});
}

}  // namespace solder
