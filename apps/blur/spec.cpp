// blur: separable 3x3 box blur of a grayscale f32 image (4K: 2160x3840): blur_x averages 3
// horizontal taps, blur_y averages 3 vertical taps of blur_x. The input is clamped at the borders
// (repeat_edge), so the output has the input's size.
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

AppSpec blur_spec() {
    AppSpec a;
    a.name = "blur";
    a.description = "separable 3x3 box blur of a grayscale image, clamped borders";
    a.family = "image";
    a.io = [](AppSize s) {
        Shape sh = s == AppSize::Full ? Shape{2160, 3840} : Shape{45, 67};
        return AppIO{{{"in", DType::F32, sh}}, {{"out", DType::F32, sh}}};
    };
    a.make_inputs = [](std::vector<HostBuffer> &in, uint64_t seed) {
        fill_image(in[0], 1, in[0].dim(1).extent(), in[0].dim(0).extent(), seed);
    };
    a.reference = [](const std::vector<HostBuffer> &in, std::vector<HostBuffer> &out) {
        const float *p = data_as<float>(in[0]);
        float *o = data_as<float>(out[0]);
        int64_t W = in[0].dim(0).extent(), H = in[0].dim(1).extent();
        auto cx = [&](int64_t x) { return std::min(std::max<int64_t>(x, 0), W - 1); };
        auto cy = [&](int64_t y) { return std::min(std::max<int64_t>(y, 0), H - 1); };
        const float third = 1.0f / 3.0f;
        // blur_x of a clamped row is blur_x of the clamped row index, so rows out of range clamp.
        std::vector<float> bx(H * W);
        for (int64_t y = 0; y < H; y++)
            for (int64_t x = 0; x < W; x++) {
                const float *row = p + y * W;
                bx[y * W + x] = (row[cx(x - 1)] + row[x] + row[cx(x + 1)]) * third;
            }
        for (int64_t y = 0; y < H; y++)
            for (int64_t x = 0; x < W; x++)
                o[y * W + x] = (bx[cy(y - 1) * W + x] + bx[y * W + x] + bx[cy(y + 1) * W + x]) * third;
    };
    a.default_tolerance = {1e-4, 1e-5};
    return a;
}

}  // namespace solder
