// conv_layer: a convolution layer, f32, NCHW: out = relu(bias + conv3x3(in, filter)) with zero
// padding ("same" size), stride 1. in [N, CI, H, W], filter [CO, CI, 3, 3], bias [CO], out
// [N, CO, H, W]; N = 4, CI = CO = 64, H = W = 128 at full size (a ResNet-like middle layer).
// The reduction runs over the filter's extents and the input's channels.
#include <algorithm>
#include <cmath>
#include <vector>

#include "apps/ref_util.h"

namespace solder {

AppSpec conv_layer_spec() {
    AppSpec a;
    a.name = "conv_layer";
    a.description = "3x3 convolution layer (zero padded) with bias and ReLU, NCHW f32";
    a.family = "image";
    a.io = [](AppSize s) {
        bool full = s == AppSize::Full;
        int64_t N = full ? 4 : 2, CI = full ? 64 : 5, CO = full ? 64 : 7, H = full ? 128 : 13, W = full ? 128 : 11;
        return AppIO{
            {{"in", DType::F32, {N, CI, H, W}}, {"filter", DType::F32, {CO, CI, 3, 3}}, {"bias", DType::F32, {CO}}},
            {{"out", DType::F32, {N, CO, H, W}}}};
    };
    a.make_inputs = [](std::vector<HostBuffer> &in, uint64_t seed) {
        fill_uniform(in[0], DType::F32, seed, 0.0, 1.0);
        // He-like scale for 9 * CI inputs, and biases that put about half the outputs below zero.
        const double fan_in = double(in[1].dim(0).extent()) * in[1].dim(1).extent() * in[1].dim(2).extent();
        fill_normal(in[1], DType::F32, seed + 1, std::sqrt(2.0 / fan_in));
        fill_normal(in[2], DType::F32, seed + 2, 0.3);
    };
    a.reference = [](const std::vector<HostBuffer> &in, std::vector<HostBuffer> &out) {
        const float *x = data_as<float>(in[0]), *f = data_as<float>(in[1]), *b = data_as<float>(in[2]);
        float *o = data_as<float>(out[0]);
        const int64_t W = in[0].dim(0).extent(), H = in[0].dim(1).extent(), CI = in[0].dim(2).extent(),
                      N = in[0].dim(3).extent(), CO = in[1].dim(3).extent(), K = 3;
        std::vector<double> acc(static_cast<size_t>(W));
        for (int64_t n = 0; n < N; n++)
            for (int64_t co = 0; co < CO; co++)
                for (int64_t y = 0; y < H; y++) {
                    std::fill(acc.begin(), acc.end(), double(b[co]));
                    for (int64_t ci = 0; ci < CI; ci++)
                        for (int64_t ky = 0; ky < K; ky++) {
                            const int64_t iy = y + ky - 1;
                            if (iy < 0 || iy >= H) continue;
                            const float *row = x + ((n * CI + ci) * H + iy) * W;
                            for (int64_t kx = 0; kx < K; kx++) {
                                const double w = f[((co * CI + ci) * K + ky) * K + kx];
                                for (int64_t xx = 0; xx < W; xx++) {
                                    const int64_t ix = xx + kx - 1;
                                    if (ix >= 0 && ix < W) acc[xx] += w * row[ix];
                                }
                            }
                        }
                    for (int64_t xx = 0; xx < W; xx++)
                        o[((n * CO + co) * H + y) * W + xx] = float(std::max(acc[xx], 0.0));
                }
    };
    // The reference sums in double; the pipeline in f32 over 9 * CI terms.
    a.default_tolerance = {1e-4, 1e-5};
    a.test_schedules = {"solder"};
    return a;
}

}  // namespace solder
