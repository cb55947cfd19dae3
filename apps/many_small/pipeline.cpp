#include "apps/app_pipeline.h"
#include "lang/lang.h"

namespace solder {

BuiltPipeline many_small_pipeline(const AppIO &io) {
    using namespace lang;
    Graph g;
    auto in = lang_inputs(g, io);
    std::vector<Tensor> outs;
    for (auto &x : in) outs.push_back(tanh(x * 2.0 + 1.0));
    return lang_pipeline("many_small", io, in, outs);
}

}  // namespace solder
