// int8_quant: per-row (per-channel) symmetric int8 quantization of an f32 matrix x [R, C]:
// scale[r] = absmax(x[r, :]) / 127, q = clamp(round(x / scale), -127, 127) as int8 (round half to
// even). R = 8192, C = 4096 at full size.
#include <algorithm>
#include <cmath>

#include "apps/ref_util.h"

namespace solder {

AppSpec int8_quant_spec() {
    AppSpec a;
    a.name = "int8_quant";
    a.description = "per-row symmetric int8 quantization: absmax scale, round, clamp; f32 -> i8 + f32 scales";
    a.family = "ml";
    a.io = [](AppSize s) {
        int64_t R = s == AppSize::Full ? 8192 : 33, C = s == AppSize::Full ? 4096 : 160;
        return AppIO{{{"x", DType::F32, {R, C}}}, {{"q", DType::I8, {R, C}}, {"scale", DType::F32, {R}}}};
    };
    a.make_inputs = [](std::vector<HostBuffer> &in, uint64_t seed) {
        // Rows of different magnitudes, so that a scale taken from the wrong row is wrong.
        fill_normal(in[0], DType::F32, seed);
        float *x = data_as<float>(in[0]);
        const int64_t C = in[0].dim(0).extent();
        for (int64_t i = 0, n = numel(in[0]); i < n; i++) x[i] *= float(1 + (i / C) % 7);
    };
    a.reference = [](const std::vector<HostBuffer> &in, std::vector<HostBuffer> &out) {
        const float *x = data_as<float>(in[0]);
        int8_t *q = data_as<int8_t>(out[0]);
        float *scale = data_as<float>(out[1]);
        const int64_t C = in[0].dim(0).extent(), R = in[0].dim(1).extent();
        for (int64_t r = 0; r < R; r++) {
            float amax = 0;
            for (int64_t c = 0; c < C; c++) amax = std::max(amax, std::fabs(x[r * C + c]));
            // (An all-zero row would divide by zero: its scale is floored at 1e-8 / 127.)
            const float s = std::max(amax, 1e-8f) / 127.0f;
            scale[r] = s;
            for (int64_t c = 0; c < C; c++) {
                float v = std::nearbyint(x[r * C + c] / s);
                q[r * C + c] = int8_t(std::min(127.0f, std::max(-127.0f, v)));
            }
        }
    };
    // A value within an ulp of a rounding boundary may land one level off (the GPU's f32 division):
    // allow 1 of about 40 (rms of q), not 2.
    a.tolerance["q"] = {0, 0.04};
    a.tolerance["scale"] = {1e-6, 0};
    a.test_schedules = {"solder"};
    return a;
}

}  // namespace solder
