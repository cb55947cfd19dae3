// add_relu: relu(x + 1), f32 (2,32,128,512) - the nvFuser documentation's pointwise chain.
#include <algorithm>

#include "apps/ref_util.h"

namespace solder {

AppSpec add_relu_spec() {
    AppSpec a;
    a.name = "add_relu";
    a.description = "relu(x + 1), pointwise";
    a.family = "ml";
    a.io = [](AppSize s) {
        Shape sh = s == AppSize::Full ? Shape{2, 32, 128, 512} : Shape{2, 3, 17, 33};
        return AppIO{{{"x", DType::F32, sh}}, {{"out", DType::F32, sh}}};
    };
    a.make_inputs = [](std::vector<HostBuffer> &in, uint64_t seed) { fill_normal(in[0], DType::F32, seed); };
    a.reference = [](const std::vector<HostBuffer> &in, std::vector<HostBuffer> &out) {
        const float *x = data_as<float>(in[0]);
        float *o = data_as<float>(out[0]);
        for (int64_t i = 0, n = numel(in[0]); i < n; i++) o[i] = std::max(x[i] + 1.0f, 0.0f);
    };
    return a;
}

}  // namespace solder
