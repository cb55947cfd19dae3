#include "apps/app_pipeline.h"
#include "lang/lang.h"

namespace solder {

BuiltPipeline softmax_pipeline(const AppIO &io) {
    using namespace lang;
    Graph g;
    auto in = lang_inputs(g, io);
    return lang_pipeline("softmax", io, in, {cast(softmax(cast(in[0], DType::F32), -1), DType::BF16)});
}

}  // namespace solder
