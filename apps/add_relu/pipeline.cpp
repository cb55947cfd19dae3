#include "apps/app_pipeline.h"
#include "lang/lang.h"

namespace solder {

BuiltPipeline add_relu_pipeline(const AppIO &io) {
    using namespace lang;
    Graph g;
    auto in = lang_inputs(g, io);
    return lang_pipeline("add_relu", io, in, {relu(in[0] + 1.0)});
}

}  // namespace solder
