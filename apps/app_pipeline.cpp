#include "apps/app_pipeline.h"

#include <stdexcept>

namespace solder {
using namespace Halide;

std::vector<Argument> BuiltPipeline::arguments() const {
    std::vector<Argument> args;
    for (auto &p : inputs) args.push_back(p);
    for (auto &s : scalars) args.push_back(s);
    return args;
}

std::vector<lang::Tensor> lang_inputs(lang::Graph &g, const AppIO &io) {
    std::vector<lang::Tensor> ts;
    for (auto &t : io.inputs) ts.push_back(g.input(t.name, t.dtype, t.shape));
    return ts;
}

BuiltPipeline lang_pipeline(const std::string &app, const AppIO &io, const std::vector<lang::Tensor> &inputs,
                            const std::vector<lang::Tensor> &outputs) {
    if (outputs.size() != io.outputs.size())
        throw std::runtime_error(app + ": pipeline makes " + std::to_string(outputs.size()) + " outputs, spec has " +
                                 std::to_string(io.outputs.size()));
    BuiltPipeline b;
    for (auto &t : inputs) b.inputs.push_back(*t.param);
    for (size_t i = 0; i < outputs.size(); i++) {
        const auto &o = outputs[i];
        const auto &s = io.outputs[i];
        if (o.param)
            throw std::runtime_error(app + ": output '" + s.name + "' is a pipeline input; outputs must be computed");
        if (o.shape != s.shape || o.dtype != s.dtype)
            throw std::runtime_error(app + ": output '" + s.name + "' is " + dtype_name(o.dtype) + shape_str(o.shape) +
                                     " but the spec says " + dtype_name(s.dtype) + shape_str(s.shape));
        lang::set_estimates(o.func, o.shape);
        for (auto &ob : o.func.output_buffers()) lang::declare_dense(ob, o.shape);
        b.outputs.push_back(o.func);
    }
    return b;
}

ImageParam image_input(const TensorSpec &t) {
    ImageParam p(lang::storage_type(t.dtype), int(t.shape.size()), t.name);
    int r = int(t.shape.size());
    for (int i = 0; i < r; i++) p.dim(i).set_estimate(0, int(t.shape[r - 1 - i]));
    return p;
}

void check_scalar_type(const ScalarSpec &s, Type t) {
    if (lang::storage_type(s.dtype) != t)
        throw std::runtime_error("scalar parameter '" + s.name + "' is " + dtype_name(s.dtype) +
                                 " in the app's spec but its Param is another type");
}

BuiltPipeline build_app_pipeline(const AppSpec &app, AppSize size) {
    const PipelineBuilder *b = find_pipeline_builder(app.name);
    if (!b) throw std::runtime_error("app '" + app.name + "' has no pipeline builder");
    return (*b)(app.io(size));
}

}  // namespace solder
