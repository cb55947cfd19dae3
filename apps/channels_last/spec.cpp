// channels_last: an activation x [N, C, H, W] (f32) scaled and shifted per channel (a batch norm
// folded for inference) and written channels-last, [N, H, W, C], as a layout change before a
// convolution that wants NHWC. N = 32, C = 128, H = W = 56 at full size.
#include "apps/ref_util.h"

namespace solder {

AppSpec channels_last_spec() {
    AppSpec a;
    a.name = "channels_last";
    a.description = "per-channel scale and shift of an NCHW activation, written NHWC (a transposed read), f32";
    a.family = "ml";
    a.io = [](AppSize s) {
        const bool full = s == AppSize::Full;
        const int64_t N = full ? 32 : 2, C = full ? 128 : 45, H = full ? 56 : 7, W = full ? 56 : 37;
        return AppIO{{{"x", DType::F32, {N, C, H, W}}, {"scale", DType::F32, {C}}, {"shift", DType::F32, {C}}},
                     {{"out", DType::F32, {N, H, W, C}}}};
    };
    a.make_inputs = [](std::vector<HostBuffer> &in, uint64_t seed) {
        fill_normal(in[0], DType::F32, seed);
        fill_uniform(in[1], DType::F32, seed + 1, 0.5, 1.5);
        fill_normal(in[2], DType::F32, seed + 2);
    };
    a.reference = [](const std::vector<HostBuffer> &in, std::vector<HostBuffer> &out) {
        const float *x = data_as<float>(in[0]), *scale = data_as<float>(in[1]), *shift = data_as<float>(in[2]);
        float *o = data_as<float>(out[0]);
        const int64_t W = in[0].dim(0).extent(), H = in[0].dim(1).extent(), C = in[0].dim(2).extent(),
                      N = in[0].dim(3).extent();
        for (int64_t n = 0; n < N; n++)
            for (int64_t c = 0; c < C; c++)
                for (int64_t h = 0; h < H; h++)
                    for (int64_t w = 0; w < W; w++)
                        o[((n * H + h) * W + w) * C + c] = x[((n * C + c) * H + h) * W + w] * scale[c] + shift[c];
    };
    // (The host fuses the multiply and the add: one rounding fewer than the reference's.)
    a.default_tolerance = {1e-6, 1e-6};
    a.test_schedules = {"solder"};
    return a;
}

}  // namespace solder
