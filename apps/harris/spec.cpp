// harris: Harris corner response of an RGB f32 image (4K, planar (3,2160,3840)), as in Halide's
// apps/harris: gray = 0.299R + 0.587G + 0.114B; 3x3 Sobel gradients Ix, Iy; products Ixx, Iyy,
// Ixy; 3x3 box sums Sxx, Syy, Sxy; out = (Sxx*Syy - Sxy*Sxy) - 0.04*(Sxx + Syy)^2, (2160,3840).
// Only the input is clamped at the borders (repeat_edge): the gradients just outside the image
// are computed from clamped gray, not clamped themselves, and the reference does the same.
#include <algorithm>
#include <cmath>
#include <vector>

#include "apps/ref_util.h"

namespace solder {

namespace {

// A deterministic test image in [0.02, 1]: smooth gradient + sinusoids + a checkerboard of
// squares (hard edges and corners) + uniform noise. Planar: channel c is elements [c*H*W, (c+1)*H*W).
void fill_image(HostBuffer &b, int64_t C, int64_t H, int64_t W, uint64_t seed) {
    Rng r(seed);
    float *p = data_as<float>(b);
    int64_t sq = std::max<int64_t>(4, W / 24);
    for (int64_t c = 0; c < C; c++) {
        double kx = r.uniform(0.02, 0.08), ky = r.uniform(0.02, 0.08), ph = r.uniform(0.0, 6.28);
        std::vector<double> sx(W), cy(H);
        for (int64_t x = 0; x < W; x++) sx[x] = std::sin(double(x) * kx + ph);
        for (int64_t y = 0; y < H; y++) cy[y] = std::cos(double(y) * ky);
        for (int64_t y = 0; y < H; y++)
            for (int64_t x = 0; x < W; x++) {
                double v = 0.15 + 0.3 * double(x) / double(W) + 0.2 * double(y) / double(H) * double(c + 1) / double(C);
                v += 0.1 * sx[x] * cy[y];
                v += (((x / sq) + (y / sq)) % 2) ? 0.15 : -0.05;
                v += r.uniform(-0.05, 0.05);
                p[(c * H + y) * W + x] = float(std::min(1.0, std::max(0.02, v)));
            }
    }
}

}  // namespace

AppSpec harris_spec() {
    AppSpec a;
    a.name = "harris";
    a.description = "Harris corner response of an RGB image: Sobel, products, 3x3 box sums";
    a.family = "image";
    a.io = [](AppSize s) {
        int64_t H = s == AppSize::Full ? 2160 : 45, W = s == AppSize::Full ? 3840 : 67;
        return AppIO{{{"in", DType::F32, {3, H, W}}}, {{"out", DType::F32, {H, W}}}};
    };
    a.make_inputs = [](std::vector<HostBuffer> &in, uint64_t seed) {
        fill_image(in[0], 3, in[0].dim(1).extent(), in[0].dim(0).extent(), seed);
    };
    a.reference = [](const std::vector<HostBuffer> &in, std::vector<HostBuffer> &out) {
        const float *p = data_as<float>(in[0]);
        float *o = data_as<float>(out[0]);
        int64_t W = in[0].dim(0).extent(), H = in[0].dim(1).extent(), N = W * H;
        auto cx = [&](int64_t x) { return std::min(std::max<int64_t>(x, 0), W - 1); };
        auto cy = [&](int64_t y) { return std::min(std::max<int64_t>(y, 0), H - 1); };
        std::vector<float> gray(N);
        for (int64_t i = 0; i < N; i++) gray[i] = 0.299f * p[i] + 0.587f * p[N + i] + 0.114f * p[2 * N + i];
        auto g = [&](int64_t x, int64_t y) { return gray[cy(y) * W + cx(x)]; };
        // Products on the image grown by one pixel on each side: padded index (y+1)*PW + (x+1).
        int64_t PW = W + 2, PH = H + 2;
        std::vector<float> ixx(PW * PH), iyy(PW * PH), ixy(PW * PH);
        for (int64_t y = -1; y <= H; y++)
            for (int64_t x = -1; x <= W; x++) {
                float ix = ((g(x + 1, y - 1) - g(x - 1, y - 1)) + 2.0f * (g(x + 1, y) - g(x - 1, y))) +
                           (g(x + 1, y + 1) - g(x - 1, y + 1));
                float iy = ((g(x - 1, y + 1) - g(x - 1, y - 1)) + 2.0f * (g(x, y + 1) - g(x, y - 1))) +
                           (g(x + 1, y + 1) - g(x + 1, y - 1));
                int64_t i = (y + 1) * PW + (x + 1);
                ixx[i] = ix * ix;
                iyy[i] = iy * iy;
                ixy[i] = ix * iy;
            }
        auto box = [&](const std::vector<float> &v, int64_t x, int64_t y) {
            float s = v[y * PW + x];  // padded (x-1, y-1) of image point (x, y)
            for (int64_t dy = 0; dy < 3; dy++)
                for (int64_t dx = 0; dx < 3; dx++)
                    if (dx || dy) s = s + v[(y + dy) * PW + (x + dx)];
            return s;
        };
        for (int64_t y = 0; y < H; y++)
            for (int64_t x = 0; x < W; x++) {
                float sxx = box(ixx, x, y), syy = box(iyy, x, y), sxy = box(ixy, x, y);
                float det = sxx * syy - sxy * sxy;
                float trace = sxx + syy;
                o[y * W + x] = det - 0.04f * (trace * trace);
            }
    };
    // Halide's simplifier reassociates float sums (gray, Sobel taps, box sums), so outputs differ
    // from this loop by a few ulps of Sxx*Syy and 0.04*trace^2; det - 0.04*trace^2 cancels those
    // terms, so near-zero responses carry absolute errors up to ~1e-5 of rms(ref): atol 1e-4.
    a.default_tolerance = {1e-4, 1e-4};
    return a;
}

}  // namespace solder
