// Pipeline builders of the bundled apps, by name (the list matches apps/registry.cpp).
#include <map>

#include "apps/app_pipeline.h"

namespace solder {

// (clang-format would re-flow this list differently on every pass.)
// clang-format off
#define SOLDER_APP_PIPELINES(X) \
    X(add_relu) X(nnc_cast_add_mul) X(puzzler_slices) X(nvfuser_2146) X(rmsnorm) X(layernorm) \
    X(softmax) X(bias_gelu) X(many_small) X(blur) X(unsharp) X(harris) X(hist_equalize) \
    X(iir_blur) X(row_norm) X(swiglu_fwd) X(swiglu_bwd) X(group_norm) X(causal_softmax) X(int8_quant) \
    X(int8_dequant) X(embedding_gather) X(layernorm_bwd) X(matmul) \
    X(stencil_chain) X(max_filter) X(camera_pipe) X(bilateral_grid) X(conv_layer) X(depthwise_conv) \
    X(interpolate) X(lens_blur) X(bgu) X(local_laplacian) X(nl_means) X(image_stats) X(channels_last)
// clang-format on

#define DECLARE_BUILDER(n) BuiltPipeline n##_pipeline(const AppIO &io);
SOLDER_APP_PIPELINES(DECLARE_BUILDER)

const PipelineBuilder *find_pipeline_builder(const std::string &app) {
#define MAP_ENTRY(n) {#n, PipelineBuilder(n##_pipeline)},
    static const std::map<std::string, PipelineBuilder> builders = {SOLDER_APP_PIPELINES(MAP_ENTRY)};
    auto it = builders.find(app);
    return it == builders.end() ? nullptr : &it->second;
}

}  // namespace solder
