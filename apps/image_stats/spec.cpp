// image_stats: an f32 image (4096 x 4096) standardized by its mean and variance over every pixel,
// written as Halide users write it: two 0-d reductions over an RDom of the input's extents, read by
// the output at every pixel.
#include <cmath>

#include "apps/ref_util.h"

namespace solder {

AppSpec image_stats_spec() {
    AppSpec a;
    a.name = "image_stats";
    a.description = "an image standardized by its mean and variance (two 0-d reductions over the input's extents)";
    a.family = "image";
    a.io = [](AppSize s) {
        Shape sh = s == AppSize::Full ? Shape{4096, 4096} : Shape{67, 150};
        return AppIO{{{"x", DType::F32, sh}}, {{"out", DType::F32, sh}}};
    };
    a.make_inputs = [](std::vector<HostBuffer> &in, uint64_t seed) {
        fill_uniform(in[0], DType::F32, seed, -2.0, 3.0);
    };
    a.reference = [](const std::vector<HostBuffer> &in, std::vector<HostBuffer> &out) {
        const float *p = data_as<float>(in[0]);
        float *o = data_as<float>(out[0]);
        const int64_t n = int64_t(in[0].number_of_elements());
        double m = 0, v = 0;
        for (int64_t i = 0; i < n; i++) m += p[i];
        m /= double(n);
        for (int64_t i = 0; i < n; i++) v += (p[i] - m) * (p[i] - m);
        v /= double(n);
        for (int64_t i = 0; i < n; i++) o[i] = float((p[i] - m) / std::sqrt(v + 1e-5));
    };
    // Float sums of 16 million values (one thread's, on the host) drift from the double reference by
    // about 1e-4 of the mean.
    a.default_tolerance = {1e-3, 1e-3};
    a.test_schedules = {"solder"};
    return a;
}

}  // namespace solder
