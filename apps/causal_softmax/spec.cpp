// causal_softmax: the attention-probability step of a decoder: scores [B, S, S] f32 (query rows,
// key columns) scaled by 1/sqrt(head_dim), keys after the query masked to -inf, and a softmax over
// the keys. B = 16 (batch x heads), S = 2048 at full size.
#include <cmath>

#include "apps/ref_util.h"

namespace solder {

namespace {
constexpr double kScale = 0.125;  // the scalar parameter "scale": 1/sqrt(64), a head dimension of 64
}  // namespace

AppSpec causal_softmax_spec() {
    AppSpec a;
    a.name = "causal_softmax";
    a.description = "scaled, causally masked softmax over the keys of [B, S, S] f32 scores";
    a.family = "ml";
    a.io = [](AppSize s) {
        int64_t B = s == AppSize::Full ? 16 : 3, S = s == AppSize::Full ? 2048 : 45;
        return AppIO{
            {{"scores", DType::F32, {B, S, S}}}, {{"probs", DType::F32, {B, S, S}}}, {{"scale", DType::F32, kScale}}};
    };
    a.make_inputs = [](std::vector<HostBuffer> &in, uint64_t seed) { fill_normal(in[0], DType::F32, seed, 8.0); };
    a.reference = [](const std::vector<HostBuffer> &in, std::vector<HostBuffer> &out) {
        const double scale = kScale;
        const float *x = data_as<float>(in[0]);
        float *o = data_as<float>(out[0]);
        const int64_t S = in[0].dim(0).extent(), B = in[0].dim(2).extent();
        for (int64_t b = 0; b < B; b++)
            for (int64_t q = 0; q < S; q++) {
                const float *row = x + (b * S + q) * S;
                float *orow = o + (b * S + q) * S;
                // Keys 0..q are visible; the rest get probability exactly 0.
                double m = -INFINITY, z = 0;
                for (int64_t k = 0; k <= q; k++) m = std::max(m, scale * row[k]);
                for (int64_t k = 0; k <= q; k++) z += std::exp(scale * row[k] - m);
                for (int64_t k = 0; k < S; k++) orow[k] = k <= q ? float(std::exp(scale * row[k] - m) / z) : 0.0f;
            }
    };
    a.default_tolerance = {1e-4, 1e-5};
    a.test_schedules = {"solder"};
    return a;
}

}  // namespace solder
