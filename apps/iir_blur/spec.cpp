// iir_blur: a first-order recursive (IIR) blur of an f32 image (4K: 2160x3840), written as Halide
// users write it: a causal scan down the columns, then one along the rows, each
// y[k] = a * y[k-1] + (1 - a) * x[k] over an RDom from the input's extent.
#include <vector>

#include "apps/ref_util.h"

namespace solder {

AppSpec iir_blur_spec() {
    AppSpec a;
    a.name = "iir_blur";
    a.description = "recursive blur: a scan down the columns, then along the rows";
    a.family = "image";
    a.io = [](AppSize s) {
        Shape sh = s == AppSize::Full ? Shape{2160, 3840} : Shape{45, 67};
        return AppIO{{{"in", DType::F32, sh}}, {{"out", DType::F32, sh}}};
    };
    a.make_inputs = [](std::vector<HostBuffer> &in, uint64_t seed) {
        Rng r(seed);
        float *p = data_as<float>(in[0]);
        for (int64_t i = 0; i < int64_t(in[0].number_of_elements()); i++) p[i] = float(r.uniform(0.0, 1.0));
    };
    a.reference = [](const std::vector<HostBuffer> &in, std::vector<HostBuffer> &out) {
        const float *p = data_as<float>(in[0]);
        float *o = data_as<float>(out[0]);
        const int64_t W = in[0].dim(0).extent(), H = in[0].dim(1).extent();
        const float k = 0.7f;
        std::vector<float> d(size_t(W * H));
        for (int64_t x = 0; x < W; x++) {
            d[x] = p[x];
            for (int64_t y = 1; y < H; y++) d[y * W + x] = k * d[(y - 1) * W + x] + (1 - k) * p[y * W + x];
        }
        for (int64_t y = 0; y < H; y++) {
            o[y * W] = d[y * W];
            for (int64_t x = 1; x < W; x++) o[y * W + x] = k * o[y * W + x - 1] + (1 - k) * d[y * W + x];
        }
    };
    a.default_tolerance = {1e-5, 1e-6};
    return a;
}

}  // namespace solder
