// softmax: bf16(softmax(float(x), -1)), bf16 (8192,4096).
#include <cmath>

#include "apps/ref_util.h"

namespace solder {

AppSpec softmax_spec() {
    AppSpec a;
    a.name = "softmax";
    a.description = "softmax over the last axis, bf16 in/out, f32 math";
    a.family = "ml";
    a.io = [](AppSize s) {
        int64_t R = s == AppSize::Full ? 8192 : 33, C = s == AppSize::Full ? 4096 : 160;
        return AppIO{{{"x", DType::BF16, {R, C}}}, {{"out", DType::BF16, {R, C}}}};
    };
    a.make_inputs = [](std::vector<HostBuffer> &in, uint64_t seed) { fill_normal(in[0], DType::BF16, seed, 2.0); };
    a.reference = [](const std::vector<HostBuffer> &in, std::vector<HostBuffer> &out) {
        const uint16_t *x = data_as<uint16_t>(in[0]);
        uint16_t *o = data_as<uint16_t>(out[0]);
        int64_t C = in[0].dim(0).extent(), R = numel(in[0]) / C;
        for (int64_t r = 0; r < R; r++) {
            double m = -INFINITY, s = 0;
            for (int64_t c = 0; c < C; c++) m = std::max(m, double(bf16_bits_to_f32(x[r * C + c])));
            for (int64_t c = 0; c < C; c++) s += std::exp(bf16_bits_to_f32(x[r * C + c]) - m);
            for (int64_t c = 0; c < C; c++)
                o[r * C + c] = f32_to_bf16_bits(float(std::exp(bf16_bits_to_f32(x[r * C + c]) - m) / s));
        }
    };
    a.default_tolerance = {1e-2, 1e-3};
    return a;
}

}  // namespace solder
