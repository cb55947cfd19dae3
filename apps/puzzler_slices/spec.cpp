// puzzler_slices: x [4096,16,64] f32 (reduced: [37,4,24]); for each of the 16 slices x[:, i, :], tanh(layer_norm over the
// last axis) (no affine, eps 1e-5); stacked back to [4096,16,64]. The "GPU puzzler" horizontal case.
#include <cmath>

#include "apps/ref_util.h"

namespace solder {

AppSpec puzzler_slices_spec() {
    AppSpec a;
    a.name = "puzzler_slices";
    a.description = "16 independent slices: tanh(layer_norm(x[:, i, :])), stacked";
    a.family = "ml";
    a.io = [](AppSize s) {
        Shape sh = s == AppSize::Full ? Shape{4096, 16, 64} : Shape{37, 4, 24};
        return AppIO{{{"x", DType::F32, sh}}, {{"out", DType::F32, sh}}};
    };
    a.make_inputs = [](std::vector<HostBuffer> &in, uint64_t seed) { fill_normal(in[0], DType::F32, seed, 2.0); };
    a.reference = [](const std::vector<HostBuffer> &in, std::vector<HostBuffer> &out) {
        const float *x = data_as<float>(in[0]);
        float *o = data_as<float>(out[0]);
        int64_t D = in[0].dim(0).extent(), T = in[0].dim(1).extent(), B = in[0].dim(2).extent();
        for (int64_t b = 0; b < B; b++)
            for (int64_t t = 0; t < T; t++) {
                const float *row = x + (b * T + t) * D;
                double mu = 0, var = 0;
                for (int64_t d = 0; d < D; d++) mu += row[d];
                mu /= double(D);
                for (int64_t d = 0; d < D; d++) var += (row[d] - mu) * (row[d] - mu);
                double inv = 1.0 / std::sqrt(var / double(D) + 1e-5);
                for (int64_t d = 0; d < D; d++) o[(b * T + t) * D + d] = float(std::tanh((row[d] - mu) * inv));
            }
    };
    a.default_tolerance = {1e-4, 1e-5};
    return a;
}

}  // namespace solder
