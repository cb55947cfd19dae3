// int8_dequant: the inverse of int8_quant: out[r, c] = q[r, c] * scale[r], int8 [R, C] and f32 [R]
// -> f32 [R, C]. R = 8192, C = 4096 at full size.
#include "apps/ref_util.h"

namespace solder {

AppSpec int8_dequant_spec() {
    AppSpec a;
    a.name = "int8_dequant";
    a.description = "per-row int8 dequantization: q * scale[row], i8 + f32 scales -> f32";
    a.family = "ml";
    a.io = [](AppSize s) {
        int64_t R = s == AppSize::Full ? 8192 : 33, C = s == AppSize::Full ? 4096 : 160;
        return AppIO{{{"q", DType::I8, {R, C}}, {"scale", DType::F32, {R}}}, {{"out", DType::F32, {R, C}}}};
    };
    a.make_inputs = [](std::vector<HostBuffer> &in, uint64_t seed) {
        fill_uniform(in[0], DType::I8, seed, -127, 128);
        fill_uniform(in[1], DType::F32, seed + 1, 1e-3, 5e-2);
    };
    a.reference = [](const std::vector<HostBuffer> &in, std::vector<HostBuffer> &out) {
        const int8_t *q = data_as<int8_t>(in[0]);
        const float *scale = data_as<float>(in[1]);
        float *o = data_as<float>(out[0]);
        const int64_t C = in[0].dim(0).extent(), R = in[0].dim(1).extent();
        for (int64_t r = 0; r < R; r++)
            for (int64_t c = 0; c < C; c++) o[r * C + c] = float(q[r * C + c]) * scale[r];
    };
    a.default_tolerance = {1e-6, 0};
    a.test_schedules = {"solder"};
    return a;
}

}  // namespace solder
