// unsharp: unsharp mask of an RGB f32 image (4K, planar (3,2160,3840)), as in Halide's
// apps/unsharp: gray = 0.299R + 0.587G + 0.114B; a separable 5-tap [1 4 6 4 1]/16 blur (blur_x
// then blur_y) of gray; sharpen = gray + 1.5*(gray - blurred); ratio = sharpen / max(gray, 1e-4);
// out = in * ratio per channel. The input is clamped at the borders (repeat_edge).
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

AppSpec unsharp_spec() {
    AppSpec a;
    a.name = "unsharp";
    a.description = "unsharp mask of an RGB image: 5-tap separable blur of luma, per-channel ratio";
    a.family = "image";
    a.io = [](AppSize s) {
        Shape sh = s == AppSize::Full ? Shape{3, 2160, 3840} : Shape{3, 45, 67};
        return AppIO{{{"in", DType::F32, sh}}, {{"out", DType::F32, sh}}};
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
        const float w0 = 0.375f, w1 = 0.25f, w2 = 0.0625f, amount = 1.5f, eps = 1e-4f;
        // Every stage before blur_y is horizontal or pointwise, so clamping the input's rows is
        // the same as clamping blur_x's rows; gray is pointwise, so its columns clamp too.
        std::vector<float> gray(N), bx(N);
        for (int64_t i = 0; i < N; i++) gray[i] = 0.299f * p[i] + 0.587f * p[N + i] + 0.114f * p[2 * N + i];
        for (int64_t y = 0; y < H; y++) {
            const float *g = gray.data() + y * W;
            for (int64_t x = 0; x < W; x++)
                bx[y * W + x] = w0 * g[x] + w1 * (g[cx(x - 1)] + g[cx(x + 1)]) + w2 * (g[cx(x - 2)] + g[cx(x + 2)]);
        }
        for (int64_t y = 0; y < H; y++)
            for (int64_t x = 0; x < W; x++) {
                auto b = [&](int64_t yy) { return bx[cy(yy) * W + x]; };
                float blurred = w0 * b(y) + w1 * (b(y - 1) + b(y + 1)) + w2 * (b(y - 2) + b(y + 2));
                float g = gray[y * W + x];
                float sharpen = g + amount * (g - blurred);
                float ratio = sharpen / std::max(g, eps);
                for (int64_t c = 0; c < 3; c++) o[c * N + y * W + x] = p[c * N + y * W + x] * ratio;
            }
    };
    a.default_tolerance = {1e-4, 1e-5};
    return a;
}

}  // namespace solder
