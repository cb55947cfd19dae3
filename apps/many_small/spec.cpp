// many_small: 200 independent f32 vectors of sizes 1000 + 37*i, each tanh(2x + 1). Launch-bound:
// the horizontal-fusion case (one kernel per tensor costs 200 launches).
#include <cmath>

#include "apps/ref_util.h"

namespace solder {

AppSpec many_small_spec() {
    AppSpec a;
    a.name = "many_small";
    a.description = "200 small vectors, tanh(2x + 1) each";
    a.family = "ml";
    a.io = [](AppSize s) {
        int n = s == AppSize::Full ? 200 : 8, base = s == AppSize::Full ? 1000 : 10;
        AppIO io;
        for (int i = 0; i < n; i++) {
            io.inputs.push_back({"x" + std::to_string(i), DType::F32, {base + 37 * i}});
            io.outputs.push_back({"y" + std::to_string(i), DType::F32, {base + 37 * i}});
        }
        return io;
    };
    a.make_inputs = [](std::vector<HostBuffer> &in, uint64_t seed) {
        for (size_t i = 0; i < in.size(); i++) fill_normal(in[i], DType::F32, seed + i);
    };
    a.reference = [](const std::vector<HostBuffer> &in, std::vector<HostBuffer> &out) {
        for (size_t k = 0; k < in.size(); k++) {
            const float *x = data_as<float>(in[k]);
            float *o = data_as<float>(out[k]);
            for (int64_t i = 0, n = numel(in[k]); i < n; i++) o[i] = float(std::tanh(2.0 * x[i] + 1.0));
        }
    };
    a.default_tolerance = {1e-5, 1e-6};
    return a;
}

}  // namespace solder
