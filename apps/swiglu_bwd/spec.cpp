// swiglu_bwd: the backward of out = silu(gate) * up, f32 [T, H] (T = 8192, H = 4096 at full size).
// With s = sigmoid(g): d silu(g)/dg = s * (1 + g * (1 - s)), so
//   dgate = dy * up * s * (1 + g * (1 - s)),   dup = dy * g * s.
#include <cmath>

#include "apps/ref_util.h"

namespace solder {

AppSpec swiglu_bwd_spec() {
    AppSpec a;
    a.name = "swiglu_bwd";
    a.description = "SwiGLU backward: dgate and dup from gate, up and dy (two outputs), f32";
    a.family = "ml";
    a.io = [](AppSize s) {
        int64_t T = s == AppSize::Full ? 8192 : 37, H = s == AppSize::Full ? 4096 : 75;
        Shape sh{T, H};
        return AppIO{{{"gate", DType::F32, sh}, {"up", DType::F32, sh}, {"dy", DType::F32, sh}},
                     {{"dgate", DType::F32, sh}, {"dup", DType::F32, sh}}};
    };
    a.make_inputs = [](std::vector<HostBuffer> &in, uint64_t seed) {
        fill_normal(in[0], DType::F32, seed, 2.0);
        fill_normal(in[1], DType::F32, seed + 1);
        fill_normal(in[2], DType::F32, seed + 2);
    };
    a.reference = [](const std::vector<HostBuffer> &in, std::vector<HostBuffer> &out) {
        const float *g = data_as<float>(in[0]), *u = data_as<float>(in[1]), *dy = data_as<float>(in[2]);
        float *dg = data_as<float>(out[0]), *du = data_as<float>(out[1]);
        for (int64_t i = 0, n = numel(in[0]); i < n; i++) {
            // The derivative of g * sigmoid(g), from the product rule and sigmoid' = s (1 - s).
            double s = 1.0 / (1.0 + std::exp(-double(g[i])));
            double dsilu = s + g[i] * s * (1.0 - s);
            dg[i] = float(double(dy[i]) * u[i] * dsilu);
            du[i] = float(double(dy[i]) * g[i] * s);
        }
    };
    a.default_tolerance = {1e-4, 1e-5};  // exp in f32 (and the GPU's expf) against double
    a.test_schedules = {"solder"};
    return a;
}

}  // namespace solder
