// nl_means: non-local means denoising (Buades, Coll & Morel, 2005) of an f32 RGB image in [0, 1]
// (planar (3, 1536, 2560) at full size). Each output pixel is the mean of the pixels in a
// search_area x search_area window around it (a scalar, 7), each weighted by how alike the
// patch_size x patch_size patches (a scalar, 7) around the two pixels are:
// w = exp(-msd / h^2), msd the mean over the patch's pixels and the 3 channels of the squared
// difference, h a scalar (0.1). Reads outside the image take its nearest edge pixel.
#include <algorithm>
#include <cmath>
#include <vector>

#include "apps/ref_util.h"

namespace solder {

namespace {
constexpr int kPatchSize = 7, kSearchArea = 7;
constexpr float kH = 0.1f;
}  // namespace

AppSpec nl_means_spec() {
    AppSpec a;
    a.name = "nl_means";
    a.description = "non-local means denoising: 7x7 patches compared over a 7x7 search window, RGB";
    a.family = "image";
    a.io = [](AppSize s) {
        bool full = s == AppSize::Full;
        Shape sh = full ? Shape{3, 1536, 2560} : Shape{3, 27, 37};
        return AppIO{{{"in", DType::F32, sh}},
                     {{"out", DType::F32, sh}},
                     {{"patch_size", DType::I32, double(kPatchSize)},
                      {"search_area", DType::I32, double(kSearchArea)},
                      {"h", DType::F32, double(kH)}}};
    };
    a.make_inputs = [](std::vector<HostBuffer> &in, uint64_t seed) {
        // Smooth shapes and stripes with noise on top: patches that are alike and patches that are not.
        Rng r(seed);
        float *I = data_as<float>(in[0]);
        const int64_t W = in[0].dim(0).extent(), H = in[0].dim(1).extent();
        for (int64_t c = 0; c < 3; c++) {
            const double k = r.uniform(0.05, 0.3), base = r.uniform(0.2, 0.5);
            for (int64_t y = 0; y < H; y++)
                for (int64_t x = 0; x < W; x++) {
                    double v = base + 0.25 * std::sin(double(x) * k + double(c)) * (y % 16 < 8 ? 1 : -1);
                    if ((x - W / 2) * (x - W / 2) + (y - H / 2) * (y - H / 2) < H * H / 9) v += 0.3;
                    I[(c * H + y) * W + x] = float(std::min(1.0, std::max(0.0, v + r.uniform(-0.05, 0.05))));
                }
        }
    };
    a.reference = [](const std::vector<HostBuffer> &in, std::vector<HostBuffer> &out) {
        const float *I = data_as<float>(in[0]);
        float *o = data_as<float>(out[0]);
        const int64_t W = in[0].dim(0).extent(), H = in[0].dim(1).extent();
        auto at = [&](int64_t x, int64_t y, int64_t c) {
            x = std::min(std::max<int64_t>(x, 0), W - 1);
            y = std::min(std::max<int64_t>(y, 0), H - 1);
            return double(I[(c * H + y) * W + x]);
        };
        const int pr = kPatchSize / 2, sr = kSearchArea / 2;
        const double per_sample = 1.0 / (3.0 * kPatchSize * kPatchSize * double(kH) * double(kH));
        std::vector<double> sums(3);
        for (int64_t y = 0; y < H; y++)
            for (int64_t x = 0; x < W; x++) {
                double wsum = 0;
                std::fill(sums.begin(), sums.end(), 0.0);
                for (int sy = -sr; sy <= sr; sy++)
                    for (int sx = -sr; sx <= sr; sx++) {
                        double dist = 0;
                        for (int py = -pr; py <= pr; py++)
                            for (int px = -pr; px <= pr; px++)
                                for (int c = 0; c < 3; c++) {
                                    double e = at(x + px, y + py, c) - at(x + px + sx, y + py + sy, c);
                                    dist += e * e;
                                }
                        const double w = std::exp(-dist * per_sample);
                        wsum += w;
                        for (int c = 0; c < 3; c++) sums[size_t(c)] += w * at(x + sx, y + sy, c);
                    }
                for (int c = 0; c < 3; c++) o[(c * H + y) * W + x] = float(sums[size_t(c)] / wsum);
            }
    };
    a.default_tolerance = {1e-4, 1e-5};
    a.test_schedules = {"solder"};
    return a;
}

}  // namespace solder
