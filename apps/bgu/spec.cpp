// bgu: bilateral guided upsampling (Chen, Adams, Wadhwa & Hasinoff, 2016). Given a full-resolution
// RGB f32 image (planar (3, 1536, 2560) at full size) and a low-resolution pair (3, 192, 320) --
// the image reduced, and that reduction after some operator -- it fits a bilateral grid of 3x4
// affine colour models, out = A [r g b 1], and applies it at full resolution.
//  - The grid has a cell per 8x8 tile of the low-resolution image and 8 bins of the guide
//    (luma g = (r + 2 g + b) / 4, z = g * 7); a pixel adds to the two nearest bins with tent
//    weights max(0, 1 - |z - bin|).
//  - Per cell, the normal equations of the least-squares fit, M = sum w v v^T and B = sum w v o^T
//    (v = [r g b 1] of the low-resolution input, o its output), are regularized towards the
//    identity model: (M + lambda I) A^T = B + lambda [I3; 0], lambda a scalar (0.05).
//  - The 4x4 system (three right-hand sides) is solved by Gaussian elimination, written as one
//    Func per elimination step over (cell, row, column), then back substitution.
//  - Slicing: the model at each full-resolution pixel is the trilinear interpolation of the grid
//    at the pixel's position in cells (centres at (i + 1/2) * 8 low-resolution pixels) and its
//    guide bin, indices clamped to the grid; the output is that model applied to the pixel.
#include <algorithm>
#include <cmath>
#include <vector>

#include "apps/ref_util.h"

namespace solder {

namespace {
constexpr int kCell = 8, kBins = 8;
constexpr float kLambda = 0.05f;
}  // namespace

AppSpec bgu_spec() {
    AppSpec a;
    a.name = "bgu";
    a.description = "bilateral guided upsampling: per-cell regularized 3x4 affine fits, trilinear slice";
    a.family = "image";
    a.io = [](AppSize s) {
        bool full = s == AppSize::Full;
        Shape hi = full ? Shape{3, 1536, 2560} : Shape{3, 45, 67}, lo = full ? Shape{3, 192, 320} : Shape{3, 19, 27};
        return AppIO{{{"hi", DType::F32, hi}, {"lo_in", DType::F32, lo}, {"lo_out", DType::F32, lo}},
                     {{"out", DType::F32, hi}},
                     {{"lambda", DType::F32, double(kLambda)}}};
    };
    a.make_inputs = [](std::vector<HostBuffer> &in, uint64_t seed) {
        Rng r(seed);
        float *hi = data_as<float>(in[0]), *li = data_as<float>(in[1]), *lo = data_as<float>(in[2]);
        const int64_t W = in[0].dim(0).extent(), H = in[0].dim(1).extent(), N = W * H;
        const int64_t w = in[1].dim(0).extent(), h = in[1].dim(1).extent(), n = w * h;
        for (int64_t c = 0; c < 3; c++) {
            double kx = r.uniform(0.005, 0.05), ky = r.uniform(0.005, 0.05);
            for (int64_t y = 0; y < H; y++)
                for (int64_t x = 0; x < W; x++)
                    hi[c * N + y * W + x] = float(std::min(
                        1.0, std::max(0.0, 0.5 + 0.4 * std::sin(double(x) * kx + double(c)) * std::cos(double(y) * ky) +
                                               r.uniform(-0.05, 0.05))));
        }
        // The reduction samples the nearest full-resolution pixel; the operator mixes the channels
        // and applies a tone curve.
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++) {
                int64_t X = std::min(W - 1, int64_t((double(x) + 0.5) * double(W) / double(w)));
                int64_t Y = std::min(H - 1, int64_t((double(y) + 0.5) * double(H) / double(h)));
                float v[3];
                for (int64_t c = 0; c < 3; c++) v[c] = li[c * n + y * w + x] = hi[c * N + Y * W + X];
                float m = (v[0] + v[1] + v[2]) / 3;
                for (int64_t c = 0; c < 3; c++)
                    lo[c * n + y * w + x] = float(0.8 * std::pow(double(v[c]), 0.6) + 0.2 * m - 0.1 * double(c) * m);
            }
    };
    a.reference = [](const std::vector<HostBuffer> &in, std::vector<HostBuffer> &out) {
        const float *hi = data_as<float>(in[0]), *li = data_as<float>(in[1]), *lo = data_as<float>(in[2]);
        float *o = data_as<float>(out[0]);
        const int64_t W = in[0].dim(0).extent(), H = in[0].dim(1).extent(), N = W * H;
        const int64_t w = in[1].dim(0).extent(), h = in[1].dim(1).extent(), n = w * h;
        const int64_t gw = (w + kCell - 1) / kCell, gh = (h + kCell - 1) / kCell;
        // coef[((cell * 4 + i) * 3 + c)]: the model's coefficient of input i in output c.
        std::vector<float> coef(size_t(gw * gh * kBins * 12));
        for (int64_t gz = 0; gz < kBins; gz++)
            for (int64_t gy = 0; gy < gh; gy++)
                for (int64_t gx = 0; gx < gw; gx++) {
                    // The augmented matrix [M | B], accumulated over the tile in row-major order.
                    float A[4][7] = {};
                    for (int64_t ty = 0; ty < kCell; ty++)
                        for (int64_t tx = 0; tx < kCell; tx++) {
                            int64_t px = gx * kCell + tx, py = gy * kCell + ty;
                            bool inside = px < w && py < h;
                            px = std::min(px, w - 1), py = std::min(py, h - 1);
                            float v[4], t[7];
                            for (int c = 0; c < 3; c++) v[c] = li[c * n + py * w + px];
                            v[3] = 1.0f;
                            float z = (0.25f * v[0] + 0.5f * v[1] + 0.25f * v[2]) * float(kBins - 1);
                            float wt = inside ? std::max(0.0f, 1.0f - std::fabs(z - float(gz))) : 0.0f;
                            for (int j = 0; j < 4; j++) t[j] = v[j];
                            for (int c = 0; c < 3; c++) t[4 + c] = lo[c * n + py * w + px];
                            for (int i = 0; i < 4; i++)
                                for (int j = 0; j < 7; j++) A[i][j] += wt * v[i] * t[j];
                        }
                    for (int i = 0; i < 4; i++)
                        for (int j = 0; j < 7; j++)
                            if (i == j || i == j - 4) A[i][j] += kLambda;
                    // Elimination without pivoting (M + lambda I is positive definite), one column
                    // at a time, each step reading the previous step's matrix.
                    for (int k = 0; k < 3; k++) {
                        float P[4][7];
                        for (int i = 0; i < 4; i++)
                            for (int j = 0; j < 7; j++)
                                P[i][j] = i <= k ? A[i][j] : A[i][j] - A[i][k] / A[k][k] * A[k][j];
                        std::copy(&P[0][0], &P[0][0] + 28, &A[0][0]);
                    }
                    const int64_t cell = (gz * gh + gy) * gw + gx;
                    for (int c = 0; c < 3; c++) {
                        float x3 = A[3][4 + c] / A[3][3];
                        float x2 = (A[2][4 + c] - A[2][3] * x3) / A[2][2];
                        float x1 = (A[1][4 + c] - A[1][2] * x2 - A[1][3] * x3) / A[1][1];
                        float x0 = (A[0][4 + c] - A[0][1] * x1 - A[0][2] * x2 - A[0][3] * x3) / A[0][0];
                        float xs[4] = {x0, x1, x2, x3};
                        for (int i = 0; i < 4; i++) coef[size_t((cell * 4 + i) * 3 + c)] = xs[i];
                    }
                }
        const float sx = float(w) / float(W) / float(kCell), sy = float(h) / float(H) / float(kCell);
        for (int64_t y = 0; y < H; y++)
            for (int64_t x = 0; x < W; x++) {
                float v[4] = {hi[y * W + x], hi[N + y * W + x], hi[2 * N + y * W + x], 1.0f};
                float fx = (float(x) + 0.5f) * sx - 0.5f, fy = (float(y) + 0.5f) * sy - 0.5f;
                float fz = (0.25f * v[0] + 0.5f * v[1] + 0.25f * v[2]) * float(kBins - 1);
                float flx = std::floor(fx), fly = std::floor(fy), flz = std::floor(fz);
                float ax = fx - flx, ay = fy - fly, az = fz - flz;
                int64_t x0 = int64_t(flx), y0 = int64_t(fly), z0 = int64_t(flz);
                auto cl = [](int64_t v, int64_t e) { return std::min(std::max<int64_t>(v, 0), e - 1); };
                auto at = [&](int64_t gx, int64_t gy, int64_t gz, int i, int c) {
                    int64_t cell = (cl(gz, kBins) * gh + cl(gy, gh)) * gw + cl(gx, gw);
                    return coef[size_t((cell * 4 + i) * 3 + c)];
                };
                for (int c = 0; c < 3; c++) {
                    float s = 0.0f;
                    for (int i = 0; i < 4; i++) {
                        auto lx = [&](int64_t gy, int64_t gz) {
                            return (1.0f - ax) * at(x0, gy, gz, i, c) + ax * at(x0 + 1, gy, gz, i, c);
                        };
                        auto ly = [&](int64_t gz) { return (1.0f - ay) * lx(y0, gz) + ay * lx(y0 + 1, gz); };
                        float m = (1.0f - az) * ly(z0) + az * ly(z0 + 1);
                        s = i == 0 ? m * v[0] : s + m * v[i];
                    }
                    o[c * N + y * W + x] = s;
                }
            }
    };
    a.default_tolerance = {1e-3, 1e-4};
    a.test_schedules = {"solder"};
    return a;
}

}  // namespace solder
