// depthwise_conv: a depthwise separable convolution block (MobileNet, Howard et al. 2017), f32,
// NCHW: a 3x3 depthwise convolution (one filter per channel, zero padded, stride 1) with bias and
// ReLU, then a 1x1 pointwise convolution across channels with bias and ReLU. in [N, C, H, W],
// dw_w [C, 3, 3], dw_b [C], pw_w [CO, C], pw_b [CO], out [N, CO, H, W]; N = 4, C = 32, CO = 64,
// H = W = 112 at full size (MobileNet v1's second block).
#include <algorithm>
#include <cmath>
#include <vector>

#include "apps/ref_util.h"

namespace solder {

AppSpec depthwise_conv_spec() {
    AppSpec a;
    a.name = "depthwise_conv";
    a.description = "depthwise 3x3 conv + ReLU, then pointwise 1x1 conv + ReLU, NCHW f32";
    a.family = "image";
    a.io = [](AppSize s) {
        bool full = s == AppSize::Full;
        int64_t N = full ? 4 : 2, C = full ? 32 : 5, CO = full ? 64 : 7, H = full ? 112 : 13, W = full ? 112 : 11;
        return AppIO{{{"in", DType::F32, {N, C, H, W}},
                      {"dw_w", DType::F32, {C, 3, 3}},
                      {"dw_b", DType::F32, {C}},
                      {"pw_w", DType::F32, {CO, C}},
                      {"pw_b", DType::F32, {CO}}},
                     {{"out", DType::F32, {N, CO, H, W}}}};
    };
    a.make_inputs = [](std::vector<HostBuffer> &in, uint64_t seed) {
        fill_uniform(in[0], DType::F32, seed, -1.0, 1.0);
        fill_normal(in[1], DType::F32, seed + 1, std::sqrt(2.0 / 9.0));
        fill_normal(in[2], DType::F32, seed + 2, 0.2);
        fill_normal(in[3], DType::F32, seed + 3, std::sqrt(2.0 / double(in[3].dim(0).extent())));
        fill_normal(in[4], DType::F32, seed + 4, 0.2);
    };
    a.reference = [](const std::vector<HostBuffer> &in, std::vector<HostBuffer> &out) {
        const float *x = data_as<float>(in[0]), *dww = data_as<float>(in[1]), *dwb = data_as<float>(in[2]),
                    *pww = data_as<float>(in[3]), *pwb = data_as<float>(in[4]);
        float *o = data_as<float>(out[0]);
        const int64_t W = in[0].dim(0).extent(), H = in[0].dim(1).extent(), C = in[0].dim(2).extent(),
                      N = in[0].dim(3).extent(), CO = in[3].dim(1).extent(), HW = H * W;
        std::vector<double> mid(size_t(C * HW));
        for (int64_t n = 0; n < N; n++) {
            for (int64_t c = 0; c < C; c++) {
                const float *plane = x + (n * C + c) * HW;
                for (int64_t y = 0; y < H; y++)
                    for (int64_t xx = 0; xx < W; xx++) {
                        double acc = dwb[c];
                        for (int64_t ky = 0; ky < 3; ky++)
                            for (int64_t kx = 0; kx < 3; kx++) {
                                const int64_t iy = y + ky - 1, ix = xx + kx - 1;
                                if (iy >= 0 && iy < H && ix >= 0 && ix < W)
                                    acc += double(dww[(c * 3 + ky) * 3 + kx]) * plane[iy * W + ix];
                            }
                        mid[c * HW + y * W + xx] = std::max(float(acc), 0.0f);
                    }
            }
            for (int64_t co = 0; co < CO; co++)
                for (int64_t i = 0; i < HW; i++) {
                    double acc = pwb[co];
                    for (int64_t c = 0; c < C; c++) acc += double(pww[co * C + c]) * mid[c * HW + i];
                    o[(n * CO + co) * HW + i] = float(std::max(acc, 0.0));
                }
        }
    };
    a.default_tolerance = {1e-4, 1e-5};
    a.test_schedules = {"solder"};
    return a;
}

}  // namespace solder
