// bilateral_grid: the bilateral grid of Chen, Paris and Durand (2007) on an f32 grayscale image
// (4K: 2160x3840). The grid has one cell per 8x8 tile of pixels and per intensity bin of width
// r_sigma (a scalar parameter, 0.1, so 11 bins for values in [0, 1]); each cell holds the sum and
// the count of the tile's values that round to its bin (a scatter over the tile). The grid is
// blurred by a 5-tap [1 4 6 4 1] filter in z, x and y, and the output is the blurred sum over
// the blurred count, interpolated trilinearly at (x/8, y/8, value/r_sigma). The input is clamped
// at the borders (repeat_edge).
#include <algorithm>
#include <cmath>
#include <vector>

#include "apps/ref_util.h"

namespace solder {

namespace {
constexpr float kRSigma = 0.1f;  // the scalar parameter "r_sigma"
}  // namespace

AppSpec bilateral_grid_spec() {
    AppSpec a;
    a.name = "bilateral_grid";
    a.description = "bilateral grid: scatter into an 8x8 x r_sigma grid, 5-tap blurs in z, x, y, trilinear slice";
    a.family = "image";
    a.io = [](AppSize s) {
        Shape sh = s == AppSize::Full ? Shape{2160, 3840} : Shape{43, 61};
        return AppIO{{{"in", DType::F32, sh}}, {{"out", DType::F32, sh}}, {{"r_sigma", DType::F32, double(kRSigma)}}};
    };
    a.make_inputs = [](std::vector<HostBuffer> &in, uint64_t seed) {
        // Regions of different brightness (edges the filter keeps) with noise (which it smooths).
        Rng r(seed);
        float *p = data_as<float>(in[0]);
        const int64_t W = in[0].dim(0).extent(), H = in[0].dim(1).extent();
        const int64_t sq = std::max<int64_t>(5, W / 12);
        for (int64_t y = 0; y < H; y++)
            for (int64_t x = 0; x < W; x++) {
                double v = 0.15 + 0.2 * double(x) / double(W) + 0.45 * double(((x / sq) * 7 + (y / sq) * 3) % 4) / 3.0;
                v += r.uniform(-0.08, 0.08);
                p[y * W + x] = float(std::min(1.0, std::max(0.0, v)));
            }
    };
    a.reference = [](const std::vector<HostBuffer> &in, std::vector<HostBuffer> &out) {
        const float *p = data_as<float>(in[0]);
        float *o = data_as<float>(out[0]);
        const int64_t W = in[0].dim(0).extent(), H = in[0].dim(1).extent(), S = 8;
        const float inv_r = 1.0f / kRSigma;
        auto at = [&](int64_t x, int64_t y) {
            x = std::min(std::max<int64_t>(x, 0), W - 1), y = std::min(std::max<int64_t>(y, 0), H - 1);
            return std::min(std::max(p[y * W + x], 0.0f), 1.0f);
        };
        // Grid cells (gx, gy, gz) for gx in [-P, GX + P), gy in [-P, GY + P), gz in [-P, GZ + P):
        // the slice reads cells up to (W-1)/S + 1 and bin int(1/r_sigma + 0.5) + 1, and each blur
        // reads two more on each side.
        const int64_t P = 6, GX = (W - 1) / S + 2, GY = (H - 1) / S + 2, GZ = int64_t(inv_r + 0.5f) + 2;
        const int64_t NX = GX + 2 * P, NY = GY + 2 * P, NZ = GZ + 2 * P;
        auto idx = [&](int64_t gx, int64_t gy, int64_t gz, int64_t c) {
            return size_t((((c * NZ + (gz + P)) * NY + (gy + P)) * NX) + (gx + P));
        };
        std::vector<float> grid(size_t(2 * NX * NY * NZ), 0.0f);
        for (int64_t gy = -P; gy < GY + P; gy++)
            for (int64_t gx = -P; gx < GX + P; gx++)
                for (int64_t ty = 0; ty < S; ty++)
                    for (int64_t tx = 0; tx < S; tx++) {
                        const float v = at(gx * S + tx - S / 2, gy * S + ty - S / 2);
                        const int64_t gz = int64_t(v * inv_r + 0.5f);
                        grid[idx(gx, gy, gz, 0)] += v;
                        grid[idx(gx, gy, gz, 1)] += 1.0f;
                    }
        // Each 5-tap blur along one axis, over the cells it can compute (two in from each side).
        auto blur = [&](const std::vector<float> &src, int axis) {
            std::vector<float> dst(src.size(), 0.0f);
            for (int64_t c = 0; c < 2; c++)
                for (int64_t gz = -P + 2; gz < GZ + P - 2; gz++)
                    for (int64_t gy = -P + 2; gy < GY + P - 2; gy++)
                        for (int64_t gx = -P + 2; gx < GX + P - 2; gx++) {
                            auto g = [&](int64_t d) {
                                return src[idx(gx + (axis == 0) * d, gy + (axis == 1) * d, gz + (axis == 2) * d, c)];
                            };
                            dst[idx(gx, gy, gz, c)] = (g(-2) + g(2)) + 4.0f * (g(-1) + g(1)) + 6.0f * g(0);
                        }
            return dst;
        };
        std::vector<float> blurred = blur(blur(blur(grid, 2), 0), 1);
        auto mix = [](float a, float b, float w) { return a + (b - a) * w; };
        for (int64_t y = 0; y < H; y++)
            for (int64_t x = 0; x < W; x++) {
                const float v = at(x, y), zv = v * inv_r;
                const int64_t zi = std::min<int64_t>(int64_t(zv), int64_t(inv_r + 0.5f));
                const float zf = zv - float(zi);
                const int64_t xi = x / S, yi = y / S;
                const float xf = float(x % S) * (1.0f / S), yf = float(y % S) * (1.0f / S);
                float res[2];
                for (int64_t c = 0; c < 2; c++) {
                    auto b = [&](int64_t dx, int64_t dy, int64_t dz) {
                        return blurred[idx(xi + dx, yi + dy, zi + dz, c)];
                    };
                    res[c] = mix(mix(mix(b(0, 0, 0), b(1, 0, 0), xf), mix(b(0, 1, 0), b(1, 1, 0), xf), yf),
                                 mix(mix(b(0, 0, 1), b(1, 0, 1), xf), mix(b(0, 1, 1), b(1, 1, 1), xf), yf), zf);
                }
                o[y * W + x] = res[0] / res[1];
            }
    };
    a.default_tolerance = {1e-4, 1e-5};
    a.test_schedules = {"solder"};
    return a;
}

}  // namespace solder
