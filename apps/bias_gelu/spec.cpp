// bias_gelu: gelu_tanh(x + b), bf16 (8192,4096). As in PyTorch, x + b is rounded to bf16 first.
#include <cmath>

#include "apps/ref_util.h"

namespace solder {

AppSpec bias_gelu_spec() {
    AppSpec a;
    a.name = "bias_gelu";
    a.description = "bias add + GELU (tanh approximation), bf16";
    a.family = "ml";
    a.io = [](AppSize s) {
        int64_t R = s == AppSize::Full ? 8192 : 33, C = s == AppSize::Full ? 4096 : 160;
        return AppIO{{{"x", DType::BF16, {R, C}}, {"b", DType::BF16, {C}}}, {{"out", DType::BF16, {R, C}}}};
    };
    a.make_inputs = [](std::vector<HostBuffer> &in, uint64_t seed) {
        fill_normal(in[0], DType::BF16, seed, 2.0);
        fill_normal(in[1], DType::BF16, seed + 1);
    };
    a.reference = [](const std::vector<HostBuffer> &in, std::vector<HostBuffer> &out) {
        const uint16_t *x = data_as<uint16_t>(in[0]), *b = data_as<uint16_t>(in[1]);
        uint16_t *o = data_as<uint16_t>(out[0]);
        int64_t C = in[1].dim(0).extent(), R = numel(in[0]) / C;
        for (int64_t r = 0; r < R; r++)
            for (int64_t c = 0; c < C; c++) {
                double v = round_to_bf16(bf16_bits_to_f32(x[r * C + c]) + bf16_bits_to_f32(b[c]));
                double y = 0.5 * v * (1.0 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
                o[r * C + c] = f32_to_bf16_bits(float(y));
            }
    };
    a.default_tolerance = {1e-2, 1e-3};
    return a;
}

}  // namespace solder
