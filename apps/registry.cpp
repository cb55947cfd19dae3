// The bundled apps. Each app lives in apps/<name>/: spec.cpp (shapes, inputs, plain-C++
// reference; no Halide) and pipeline.cpp (its Funcs). Add an app here in both lists.
#include "apps/app_spec.h"

namespace solder {

#define SOLDER_APPS(X)                                                                                                 \
    X(add_relu)                                                                                                        \
    X(nnc_cast_add_mul)                                                                                                \
    X(puzzler_slices)                                                                                                  \
    X(nvfuser_2146)                                                                                                    \
    X(rmsnorm)                                                                                                         \
    X(layernorm)                                                                                                       \
    X(softmax)                                                                                                         \
    X(bias_gelu)                                                                                                       \
    X(many_small)                                                                                                      \
    X(blur)                                                                                                            \
    X(unsharp)                                                                                                         \
    X(harris)                                                                                                          \
    X(hist_equalize)                                                                                                   \
    X(iir_blur)                                                                                                        \
    X(row_norm)                                                                                                        \
    X(swiglu_fwd)                                                                                                      \
    X(swiglu_bwd)                                                                                                      \
    X(group_norm)                                                                                                      \
    X(causal_softmax)                                                                                                  \
    X(int8_quant)                                                                                                      \
    X(int8_dequant)                                                                                                    \
    X(matmul)                                                                                                          \
    X(embedding_gather)                                                                                                \
    X(layernorm_bwd)                                                                                                   \
    X(stencil_chain)                                                                                                   \
    X(max_filter)                                                                                                      \
    X(camera_pipe)                                                                                                     \
    X(bilateral_grid)                                                                                                  \
    X(conv_layer)                                                                                                      \
    X(depthwise_conv)                                                                                                  \
    X(interpolate)                                                                                                     \
    X(lens_blur)                                                                                                       \
    X(bgu)                                                                                                             \
    X(local_laplacian)                                                                                                 \
    X(nl_means)                                                                                                        \
    X(image_stats)                                                                                                     \
    X(channels_last)

#define DECLARE_SPEC(n) AppSpec n##_spec();
SOLDER_APPS(DECLARE_SPEC)

const std::vector<AppSpec> &all_app_specs() {
#define CALL_SPEC(n) n##_spec(),
    static const std::vector<AppSpec> specs = {SOLDER_APPS(CALL_SPEC)};
    return specs;
}

}  // namespace solder
