// swiglu_fwd: the SwiGLU gate of an LLM's MLP, f32. The up-projection's output x [T, 2H] holds the
// gate half (columns [0, H)) and the up half (columns [H, 2H)); out = silu(gate) * up, [T, H],
// with silu(g) = g / (1 + exp(-g)). T = 8192 tokens, H = 4096 at full size.
#include <cmath>

#include "apps/ref_util.h"

namespace solder {

AppSpec swiglu_fwd_spec() {
    AppSpec a;
    a.name = "swiglu_fwd";
    a.description = "SwiGLU forward: silu(gate) * up from the two halves of one [T, 2H] f32 tensor";
    a.family = "ml";
    a.io = [](AppSize s) {
        int64_t T = s == AppSize::Full ? 8192 : 37, H = s == AppSize::Full ? 4096 : 75;
        return AppIO{{{"x", DType::F32, {T, 2 * H}}}, {{"out", DType::F32, {T, H}}}};
    };
    a.make_inputs = [](std::vector<HostBuffer> &in, uint64_t seed) { fill_normal(in[0], DType::F32, seed, 2.0); };
    a.reference = [](const std::vector<HostBuffer> &in, std::vector<HostBuffer> &out) {
        const float *x = data_as<float>(in[0]);
        float *o = data_as<float>(out[0]);
        const int64_t H = out[0].dim(0).extent(), T = out[0].dim(1).extent();
        for (int64_t t = 0; t < T; t++) {
            const float *row = x + t * 2 * H;
            for (int64_t h = 0; h < H; h++) {
                double g = row[h], u = row[H + h];
                o[t * H + h] = float(g / (1.0 + std::exp(-g)) * u);
            }
        }
    };
    a.default_tolerance = {1e-4, 1e-5};  // exp in f32 (and the GPU's expf) against double
    a.test_schedules = {"solder"};
    return a;
}

}  // namespace solder
