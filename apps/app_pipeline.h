// The Halide half of an app: builds its Funcs for given shapes. Kept apart from app_spec.h so
// that binaries for the GPU machine (references and runners) link without libHalide.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "Halide.h"
#include "apps/app_spec.h"
#include "lang/tensor.h"

namespace solder {

struct BuiltPipeline {
    std::vector<Halide::ImageParam> inputs;  // in AppIO::inputs order, estimates set
    std::vector<Halide::Func> outputs;       // in AppIO::outputs order, estimates set
    std::vector<Halide::Argument> scalars;   // in AppIO::scalars order (scalar_input's Params)
    Halide::Pipeline pipeline() const { return Halide::Pipeline(outputs); }
    // The inputs, then the scalars; the outputs follow in Halide's order.
    std::vector<Halide::Argument> arguments() const;
};

using PipelineBuilder = std::function<BuiltPipeline(const AppIO &io)>;
const PipelineBuilder *find_pipeline_builder(const std::string &app);
BuiltPipeline build_app_pipeline(const AppSpec &app, AppSize size);

// For apps written with lang/: one graph input per AppIO input, in order.
std::vector<lang::Tensor> lang_inputs(lang::Graph &g, const AppIO &io);
// Checks each output tensor against the spec (shape, type), sets estimates, and packs it all.
BuiltPipeline lang_pipeline(const std::string &app, const AppIO &io, const std::vector<lang::Tensor> &inputs,
                            const std::vector<lang::Tensor> &outputs);
// For hand-written Halide apps: an ImageParam per input with estimates from the spec.
Halide::ImageParam image_input(const TensorSpec &t);
// A scalar parameter with its estimate at the spec's value; its type must match the spec's dtype.
// Add it to BuiltPipeline::scalars in AppIO::scalars order.
template<typename T> Halide::Param<T> scalar_input(const ScalarSpec &s) {
    check_scalar_type(s, Halide::type_of<T>());
    Halide::Param<T> p(s.name);
    p.set_estimate(T(s.value));
    return p;
}
void check_scalar_type(const ScalarSpec &s, Halide::Type t);

}  // namespace solder
