// max_filter: a max filter over a disc of radius r (a scalar parameter, 13) of an RGB f32 image
// (4K, planar (3,2160,3840)): for each column offset dx in [-r, r], the max of the column window
// of half-height floor(sqrt(r^2 - dx^2)) around the pixel, and the max of those. The column
// windows of every half-height are grown one step at a time (a scan over the radius), so the disc
// costs 2r+1 reads per pixel instead of ~pi r^2. The input is clamped at the borders (repeat_edge).
#include <algorithm>
#include <cmath>
#include <vector>

#include "apps/ref_util.h"

namespace solder {

namespace {
constexpr int kRadius = 13;  // the scalar parameter "radius"
}  // namespace

AppSpec max_filter_spec() {
    AppSpec a;
    a.name = "max_filter";
    a.description = "max over a disc of parameter radius: column-window maxima, then a max over the disc";
    a.family = "image";
    a.io = [](AppSize s) {
        Shape sh = s == AppSize::Full ? Shape{3, 2160, 3840} : Shape{3, 41, 59};
        return AppIO{{{"in", DType::F32, sh}}, {{"out", DType::F32, sh}}, {{"radius", DType::I32, double(kRadius)}}};
    };
    a.make_inputs = [](std::vector<HostBuffer> &in, uint64_t seed) {
        // Mostly low noise with sparse bright points, so that the disc's shape shows in the output.
        Rng r(seed);
        float *p = data_as<float>(in[0]);
        for (int64_t i = 0, n = numel(in[0]); i < n; i++) {
            double v = r.uniform(0.0, 0.3);
            if (r.uniform() < 0.004) v = r.uniform(0.5, 1.0);
            p[i] = float(v);
        }
    };
    a.reference = [](const std::vector<HostBuffer> &in, std::vector<HostBuffer> &out) {
        const float *p = data_as<float>(in[0]);
        float *o = data_as<float>(out[0]);
        const int64_t W = in[0].dim(0).extent(), H = in[0].dim(1).extent(), C = in[0].dim(2).extent();
        const int64_t R = kRadius;
        // Half-heights of the disc by integer arithmetic: the largest k with k^2 + dx^2 <= R^2.
        std::vector<int64_t> half(2 * R + 1);
        for (int64_t dx = -R; dx <= R; dx++) {
            int64_t k = 0;
            while ((k + 1) * (k + 1) + dx * dx <= R * R) k++;
            half[dx + R] = k;
        }
        auto cx = [&](int64_t x) { return std::min(std::max<int64_t>(x, 0), W - 1); };
        auto cy = [&](int64_t y) { return std::min(std::max<int64_t>(y, 0), H - 1); };
        for (int64_t c = 0; c < C; c++)
            for (int64_t y = 0; y < H; y++)
                for (int64_t x = 0; x < W; x++) {
                    float m = -INFINITY;
                    for (int64_t dx = -R; dx <= R; dx++)
                        for (int64_t dy = -half[dx + R]; dy <= half[dx + R]; dy++)
                            m = std::max(m, p[(c * H + cy(y + dy)) * W + cx(x + dx)]);
                    o[(c * H + y) * W + x] = m;
                }
    };
    a.default_tolerance = {0, 0};  // a max of inputs: exact
    a.test_schedules = {"solder"};
    return a;
}

}  // namespace solder
