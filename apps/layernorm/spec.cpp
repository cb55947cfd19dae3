// layernorm: F.layer_norm(x, (C,), gamma, beta), eps 1e-5, bf16 (8192,4096), f32 math.
#include <cmath>

#include "apps/ref_util.h"

namespace solder {

AppSpec layernorm_spec() {
    AppSpec a;
    a.name = "layernorm";
    a.description = "LayerNorm forward with weight and bias, bf16 in/out, f32 math";
    a.family = "ml";
    a.io = [](AppSize s) {
        int64_t R = s == AppSize::Full ? 8192 : 33, C = s == AppSize::Full ? 4096 : 160;
        return AppIO{{{"x", DType::BF16, {R, C}}, {"gamma", DType::BF16, {C}}, {"beta", DType::BF16, {C}}},
                     {{"out", DType::BF16, {R, C}}}};
    };
    a.make_inputs = [](std::vector<HostBuffer> &in, uint64_t seed) {
        fill_normal(in[0], DType::BF16, seed, 3.0);
        fill_normal(in[1], DType::BF16, seed + 1);
        fill_normal(in[2], DType::BF16, seed + 2);
    };
    a.reference = [](const std::vector<HostBuffer> &in, std::vector<HostBuffer> &out) {
        const uint16_t *x = data_as<uint16_t>(in[0]), *g = data_as<uint16_t>(in[1]), *b = data_as<uint16_t>(in[2]);
        uint16_t *o = data_as<uint16_t>(out[0]);
        int64_t C = in[1].dim(0).extent(), R = numel(in[0]) / C;
        for (int64_t r = 0; r < R; r++) {
            double mu = 0, var = 0;
            for (int64_t c = 0; c < C; c++) mu += bf16_bits_to_f32(x[r * C + c]);
            mu /= double(C);
            for (int64_t c = 0; c < C; c++) {
                double d = bf16_bits_to_f32(x[r * C + c]) - mu;
                var += d * d;
            }
            double inv = 1.0 / std::sqrt(var / double(C) + 1e-5);
            for (int64_t c = 0; c < C; c++) {
                double y =
                    (bf16_bits_to_f32(x[r * C + c]) - mu) * inv * bf16_bits_to_f32(g[c]) + bf16_bits_to_f32(b[c]);
                o[r * C + c] = f32_to_bf16_bits(float(y));
            }
        }
    };
    a.default_tolerance = {1e-2, 1e-3};
    return a;
}

}  // namespace solder
