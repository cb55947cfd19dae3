#include "apps/app_pipeline.h"
#include "lang/lang.h"

namespace solder {

BuiltPipeline puzzler_slices_pipeline(const AppIO &io) {
    using namespace lang;
    Graph g;
    auto in = lang_inputs(g, io);
    std::vector<Tensor> ys;
    for (int64_t i = 0; i < in[0].shape[1]; i++) ys.push_back(tanh(layer_norm(select_index(in[0], 1, i))));
    return lang_pipeline("puzzler_slices", io, in, {stack(ys, 1)});
}

}  // namespace solder
