// lens_blur: a synthetic depth-of-field blur from a rectified stereo pair of RGB u8 images (planar
// (3, 1536, 2560) at full size). The depth is a disparity found by block matching: for each of
// `disparities` (a scalar, 32) candidate shifts d, the cost is the sum over a 5x5 window of the
// absolute RGB differences between left(x, y) and right(x - d, y) (inputs clamped at the edges);
// the depth is the d of least cost (the smallest such d on ties). The blur radius is
// min(|depth - focus|, 8) with `focus` a scalar (12). The output gathers, for each pixel, itself
// and 8 samples on a disc of that radius (directions in quarter-radius units, offsets rounded
// down, positions clamped to the image): a sample sharper than the centre counts less, with
// weight min(1, (r_sample + 1) / (r + 1)), so an in-focus object does not bleed into the blurred
// background. The output is the weighted mean of left / 255, f32.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "apps/ref_util.h"

namespace solder {

namespace {
constexpr int kDisparities = 32, kFocus = 12, kMaxRadius = 8;
// The 8 aperture samples' directions, in quarter-radius units.
constexpr int kSampleX[8] = {4, 3, 0, -3, -4, -3, 0, 3};
constexpr int kSampleY[8] = {0, 3, 4, 3, 0, -3, -4, -3};
int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
}  // namespace

AppSpec lens_blur_spec() {
    AppSpec a;
    a.name = "lens_blur";
    a.description = "depth-of-field blur: block-matching stereo depth over 32 disparities, 8-sample disc gather";
    a.family = "image";
    a.io = [](AppSize s) {
        bool full = s == AppSize::Full;
        Shape sh = full ? Shape{3, 1536, 2560} : Shape{3, 29, 41};
        return AppIO{{{"left", DType::U8, sh}, {"right", DType::U8, sh}},
                     {{"out", DType::F32, sh}},
                     {{"disparities", DType::I32, double(kDisparities)}, {"focus", DType::I32, double(kFocus)}}};
    };
    a.make_inputs = [](std::vector<HostBuffer> &in, uint64_t seed) {
        // A textured left image; the right one sees the scene shifted by a disparity that is 4 in
        // the background, 20 on a near rectangle and 12 on a farther disc, plus noise.
        Rng r(seed);
        uint8_t *L = data_as<uint8_t>(in[0]), *R = data_as<uint8_t>(in[1]);
        const int64_t W = in[0].dim(0).extent(), H = in[0].dim(1).extent(), N = W * H;
        std::vector<double> tex(size_t(3 * N));
        for (int64_t c = 0; c < 3; c++) {
            double kx = r.uniform(0.1, 0.4), ky = r.uniform(0.1, 0.4);
            for (int64_t y = 0; y < H; y++)
                for (int64_t x = 0; x < W; x++)
                    tex[size_t(c * N + y * W + x)] =
                        128 + 60 * std::sin(double(x) * kx) * std::cos(double(y) * ky) + r.uniform(-60, 60);
        }
        auto disparity = [&](int64_t x, int64_t y) {
            if (x > W / 2 && x < W * 4 / 5 && y > H / 5 && y < H * 3 / 5) return 20;
            double dx = double(x - W / 4), dy = double(y - H * 2 / 3);
            return dx * dx + dy * dy < double(H * H) / 25 ? 12 : 4;
        };
        auto u8 = [](double v) { return uint8_t(std::min(255.0, std::max(0.0, v))); };
        for (int64_t c = 0; c < 3; c++)
            for (int64_t y = 0; y < H; y++)
                for (int64_t x = 0; x < W; x++) {
                    L[c * N + y * W + x] = u8(tex[size_t(c * N + y * W + x)]);
                    int64_t xs = std::min(W - 1, x + disparity(x, y));
                    R[c * N + y * W + x] = u8(tex[size_t(c * N + y * W + xs)] + r.uniform(-3, 3));
                }
    };
    a.reference = [](const std::vector<HostBuffer> &in, std::vector<HostBuffer> &out) {
        const uint8_t *L = data_as<uint8_t>(in[0]), *R = data_as<uint8_t>(in[1]);
        float *o = data_as<float>(out[0]);
        const int64_t W = in[0].dim(0).extent(), H = in[0].dim(1).extent(), N = W * H;
        auto cx = [&](int64_t x) { return std::min(std::max<int64_t>(x, 0), W - 1); };
        auto cy = [&](int64_t y) { return std::min(std::max<int64_t>(y, 0), H - 1); };
        std::vector<int32_t> best(size_t(N), 0), best_cost(size_t(N), 0);
        std::vector<int32_t> dif(size_t(H * (W + 4))), costx(static_cast<size_t>(N));
        for (int d = 0; d < kDisparities; d++) {
            // Absolute differences at x - 2 .. x + 2 of every row, then the window's row sums, then
            // its column sums.
            for (int64_t y = 0; y < H; y++)
                for (int64_t xx = -2; xx < W + 2; xx++) {
                    int32_t s = 0;
                    for (int64_t c = 0; c < 3; c++)
                        s += std::abs(int32_t(L[c * N + y * W + cx(xx)]) - int32_t(R[c * N + y * W + cx(xx - d)]));
                    dif[size_t(y * (W + 4) + xx + 2)] = s;
                }
            for (int64_t y = 0; y < H; y++)
                for (int64_t x = 0; x < W; x++) {
                    int32_t s = 0;
                    for (int64_t k = 0; k < 5; k++) s += dif[size_t(y * (W + 4) + x + k)];
                    costx[size_t(y * W + x)] = s;
                }
            for (int64_t y = 0; y < H; y++)
                for (int64_t x = 0; x < W; x++) {
                    int32_t s = 0;
                    for (int64_t k = -2; k <= 2; k++) s += costx[size_t(cy(y + k) * W + x)];
                    if (d == 0 || s < best_cost[size_t(y * W + x)])
                        best_cost[size_t(y * W + x)] = s, best[size_t(y * W + x)] = d;
                }
        }
        auto radius = [&](int64_t x, int64_t y) {
            return std::min(std::abs(best[size_t(y * W + x)] - kFocus), kMaxRadius);
        };
        for (int64_t c = 0; c < 3; c++)
            for (int64_t y = 0; y < H; y++)
                for (int64_t x = 0; x < W; x++) {
                    const int r = radius(x, y);
                    float acc = float(L[c * N + y * W + x]) * (1.0f / 255.0f), wsum = 1.0f;
                    for (int k = 0; k < 8; k++) {
                        int64_t sx = cx(x + floor_div(int64_t(r) * kSampleX[k], 4)),
                                sy = cy(y + floor_div(int64_t(r) * kSampleY[k], 4));
                        float wk = std::min(1.0f, float(radius(sx, sy) + 1) / float(r + 1));
                        acc = acc + wk * (float(L[c * N + sy * W + sx]) * (1.0f / 255.0f));
                        wsum = wsum + wk;
                    }
                    o[c * N + y * W + x] = acc / wsum;
                }
    };
    a.default_tolerance = {1e-4, 1e-5};
    a.test_schedules = {"solder"};
    return a;
}

}  // namespace solder
