// camera_pipe: a raw camera pipeline from a 12-bit RGGB Bayer mosaic (u16, 1968x2592) to an 8-bit
// RGB image (planar (3,1968,2592)): hot/dead pixel suppression (each pixel clamped to the range of
// its four nearest same-colour neighbours), black/white level, bilinear demosaic, colour
// correction by a 3x4 matrix input (f32), and a tone curve (gamma and contrast) read from a
// 1024-entry u8 table input at a data-dependent index. The mosaic is mirrored at the borders
// (mirror_interior), which keeps the colour pattern.
#include <algorithm>
#include <cmath>
#include <vector>

#include "apps/ref_util.h"

namespace solder {

AppSpec camera_pipe_spec() {
    AppSpec a;
    a.name = "camera_pipe";
    a.description = "raw Bayer to RGB: hot pixels, demosaic, colour matrix, tone curve table";
    a.family = "image";
    a.io = [](AppSize s) {
        bool full = s == AppSize::Full;
        int64_t H = full ? 1968 : 31, W = full ? 2592 : 45;
        return AppIO{{{"raw", DType::U16, {H, W}}, {"matrix", DType::F32, {3, 4}}, {"lut", DType::U8, {1024}}},
                     {{"out", DType::U8, {3, H, W}}}};
    };
    a.make_inputs = [](std::vector<HostBuffer> &in, uint64_t seed) {
        Rng r(seed);
        // A scene of smooth colour ramps and hard-edged squares, sampled through the RGGB mosaic
        // with noise, and about one pixel in 500 stuck hot (4095) or dead (0).
        uint16_t *raw = data_as<uint16_t>(in[0]);
        const int64_t W = in[0].dim(0).extent(), H = in[0].dim(1).extent();
        const int64_t sq = std::max<int64_t>(4, W / 16);
        for (int64_t y = 0; y < H; y++)
            for (int64_t x = 0; x < W; x++) {
                const int col = (y % 2) + (x % 2);  // 0 red, 1 green, 2 blue
                double fx = double(x) / double(W), fy = double(y) / double(H);
                double rgb[3] = {0.2 + 0.6 * fx, 0.3 + 0.4 * fy, 0.7 - 0.5 * fx * fy};
                if (((x / sq) + (y / sq)) % 3 == 0) rgb[(x / sq) % 3] *= 0.3;
                double v = rgb[col] + r.uniform(-0.02, 0.02);
                double u = r.uniform();
                double level = 64.0 + 4031.0 * std::min(1.0, std::max(0.0, v));
                if (u < 0.001)
                    level = 4095;
                else if (u < 0.002)
                    level = 0;
                raw[y * W + x] = uint16_t(std::lround(level));
            }
        const float m[3][4] = {
            {1.55f, -0.40f, -0.15f, 0.01f}, {-0.25f, 1.45f, -0.20f, 0.0f}, {-0.05f, -0.50f, 1.55f, 0.02f}};
        float *mat = data_as<float>(in[1]);
        for (int c = 0; c < 3; c++)
            for (int k = 0; k < 4; k++) mat[c * 4 + k] = m[c][k] * float(1.0 + r.uniform(-0.02, 0.02));
        // Gamma 1/2.2, then a mild S-shaped contrast curve.
        uint8_t *lut = data_as<uint8_t>(in[2]);
        const int64_t L = in[2].dim(0).extent();
        for (int64_t i = 0; i < L; i++) {
            double g = std::pow(double(i) / double(L - 1), 1.0 / 2.2);
            double s = g + 0.15 * std::sin(6.283185307179586 * g) / 6.283185307179586 * -1.0;
            lut[i] = uint8_t(std::lround(255.0 * std::min(1.0, std::max(0.0, s))));
        }
    };
    a.reference = [](const std::vector<HostBuffer> &in, std::vector<HostBuffer> &out) {
        const uint16_t *raw = data_as<uint16_t>(in[0]);
        const float *mat = data_as<float>(in[1]);
        const uint8_t *lut = data_as<uint8_t>(in[2]);
        uint8_t *o = data_as<uint8_t>(out[0]);
        const int64_t W = in[0].dim(0).extent(), H = in[0].dim(1).extent(), L = in[2].dim(0).extent();
        // Mirrored about the edge pixels: -1 reads 1, W reads W - 2.
        auto mx = [&](int64_t x) { return x < 0 ? -x : (x >= W ? 2 * (W - 1) - x : x); };
        auto my = [&](int64_t y) { return y < 0 ? -y : (y >= H ? 2 * (H - 1) - y : y); };
        auto px = [&](int64_t x, int64_t y) { return raw[my(y) * W + mx(x)]; };
        // The pixels suppressed and leveled on the image grown by one pixel on each side.
        const int64_t PW = W + 2, PH = H + 2;
        std::vector<float> lin(size_t(PW * PH));
        for (int64_t y = -1; y <= H; y++)
            for (int64_t x = -1; x <= W; x++) {
                uint16_t n[4] = {px(x - 2, y), px(x + 2, y), px(x, y - 2), px(x, y + 2)};
                uint16_t lo = *std::min_element(n, n + 4), hi = *std::max_element(n, n + 4);
                uint16_t d = std::min(std::max(px(x, y), lo), hi);
                lin[(y + 1) * PW + (x + 1)] = (float(d) - 64.0f) * (1.0f / 4031.0f);
            }
        auto l = [&](int64_t x, int64_t y) { return lin[(y + 1) * PW + (x + 1)]; };
        const int64_t N = W * H;
        for (int64_t y = 0; y < H; y++)
            for (int64_t x = 0; x < W; x++) {
                const float here = l(x, y);
                const float horiz = (l(x - 1, y) + l(x + 1, y)) * 0.5f;
                const float vert = (l(x, y - 1) + l(x, y + 1)) * 0.5f;
                const float cross = ((l(x - 1, y) + l(x + 1, y)) + (l(x, y - 1) + l(x, y + 1))) * 0.25f;
                const float diag = ((l(x - 1, y - 1) + l(x + 1, y - 1)) + (l(x - 1, y + 1) + l(x + 1, y + 1))) * 0.25f;
                float rgb[3];
                const bool ex = x % 2 == 0, ey = y % 2 == 0;
                if (ex && ey)
                    rgb[0] = here, rgb[1] = cross, rgb[2] = diag;  // red site
                else if (!ex && !ey)
                    rgb[0] = diag, rgb[1] = cross, rgb[2] = here;  // blue site
                else if (ey)
                    rgb[0] = horiz, rgb[1] = here, rgb[2] = vert;  // green, red row
                else
                    rgb[0] = vert, rgb[1] = here, rgb[2] = horiz;  // green, blue row
                for (int64_t c = 0; c < 3; c++) {
                    const float *m = mat + c * 4;
                    const float v = ((m[0] * rgb[0] + m[1] * rgb[1]) + m[2] * rgb[2]) + m[3];
                    int64_t i = int64_t(v * float(L - 1) + 0.5f);
                    i = std::min(std::max<int64_t>(i, 0), L - 1);
                    o[c * N + y * W + x] = lut[i];
                }
            }
    };
    // Host and OpenCL match the reference exactly. A colour within an ulp of a table step may take
    // the neighbouring entry where another compiler contracts the matrix product differently: a
    // step of the curve is at most 4 levels past its first entry (9 levels), so allow a few levels
    // (0.03 of the output's rms) and nothing like a wrong pixel.
    a.default_tolerance = {0, 0.03};
    a.test_schedules = {"solder"};
    return a;
}

}  // namespace solder
