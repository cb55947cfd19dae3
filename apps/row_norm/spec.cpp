// row_norm: layer normalization of each row of an f32 matrix (8192 rows of 4096), written as
// Halide users write it: the mean and the variance are sums over an RDom of the input's extent
// (not a constant), and the output is (x - mean) / sqrt(var + eps).
#include <cmath>

#include "apps/ref_util.h"

namespace solder {

AppSpec row_norm_spec() {
    AppSpec a;
    a.name = "row_norm";
    a.description = "row normalization with its sums over an RDom of the input's extent";
    a.family = "ml";
    a.io = [](AppSize s) {
        Shape sh = s == AppSize::Full ? Shape{8192, 4096} : Shape{33, 160};
        return AppIO{{{"x", DType::F32, sh}}, {{"out", DType::F32, sh}}};
    };
    a.make_inputs = [](std::vector<HostBuffer> &in, uint64_t seed) {
        fill_uniform(in[0], DType::F32, seed, -2.0, 3.0);
    };
    a.reference = [](const std::vector<HostBuffer> &in, std::vector<HostBuffer> &out) {
        const float *p = data_as<float>(in[0]);
        float *o = data_as<float>(out[0]);
        const int64_t W = in[0].dim(0).extent(), H = in[0].dim(1).extent();
        for (int64_t y = 0; y < H; y++) {
            double m = 0, v = 0;
            for (int64_t x = 0; x < W; x++) m += p[y * W + x];
            m /= double(W);
            for (int64_t x = 0; x < W; x++) v += (p[y * W + x] - m) * (p[y * W + x] - m);
            v /= double(W);
            for (int64_t x = 0; x < W; x++) o[y * W + x] = float((p[y * W + x] - m) / std::sqrt(v + 1e-5));
        }
    };
    a.default_tolerance = {1e-4, 1e-5};
    return a;
}

}  // namespace solder
