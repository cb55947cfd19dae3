// interpolate: multi-scale interpolation of an RGBA f32 image (planar (4, 2160, 3840) at full size):
// pixels with alpha = 0 are filled in from a pyramid. The colour is premultiplied by alpha, then
// decimated through 10 levels (each level (w + 1) / 2 by (h + 1) / 2 of the one before, a
// [1 2 1] / 4 filter in x then in y around (2x, 2y), edges clamped to the level's extent). Going
// back up, each level is the "over" blend of its own premultiplied colour with the coarser level
// upsampled 2x (linear: 3/4 of the nearer coarse pixel and 1/4 of the farther one):
// up_l = down_l + (1 - alpha_l) * upsample(up_{l+1}). The output is up_0's colour / up_0's alpha.
#include <algorithm>
#include <vector>

#include "apps/ref_util.h"

namespace solder {

namespace {
constexpr int kLevels = 10;

// One level's premultiplied RGBA, planar: element (c, y, x) at (c * h + y) * w + x.
struct Level {
    int64_t w = 0, h = 0;
    std::vector<float> v;
    float at(int64_t x, int64_t y, int64_t c) const {
        x = std::min(std::max<int64_t>(x, 0), w - 1);
        y = std::min(std::max<int64_t>(y, 0), h - 1);
        return v[size_t((c * h + y) * w + x)];
    }
};
}  // namespace

AppSpec interpolate_spec() {
    AppSpec a;
    a.name = "interpolate";
    a.description = "multi-scale interpolation: fill alpha = 0 pixels from a 10-level premultiplied pyramid";
    a.family = "image";
    a.io = [](AppSize s) {
        bool full = s == AppSize::Full;
        int64_t H = full ? 2160 : 37, W = full ? 3840 : 53;
        return AppIO{{{"in", DType::F32, {4, H, W}}}, {{"out", DType::F32, {3, H, W}}}};
    };
    a.make_inputs = [](std::vector<HostBuffer> &in, uint64_t seed) {
        // Smooth colours; alpha is 1 on about a quarter of the pixels (scattered and in a few
        // blocks), a fraction on a few, and 0 elsewhere.
        Rng r(seed);
        float *p = data_as<float>(in[0]);
        const int64_t W = in[0].dim(0).extent(), H = in[0].dim(1).extent(), N = W * H;
        for (int64_t c = 0; c < 3; c++) {
            double kx = r.uniform(0.01, 0.1), ky = r.uniform(0.01, 0.1), ph = r.uniform(0, 6.28);
            for (int64_t y = 0; y < H; y++)
                for (int64_t x = 0; x < W; x++)
                    p[c * N + y * W + x] = float(0.5 + 0.3 * std::sin(double(x) * kx + ph) * std::cos(double(y) * ky) +
                                                 r.uniform(-0.1, 0.1));
        }
        const int64_t bs = std::max<int64_t>(3, W / 16);
        for (int64_t y = 0; y < H; y++)
            for (int64_t x = 0; x < W; x++) {
                double u = r.uniform();
                bool block = ((x / bs) * 7 + (y / bs) * 3) % 5 == 0;
                p[3 * N + y * W + x] = block || u < 0.2 ? 1.0f : u < 0.25 ? float(r.uniform(0.1, 0.9)) : 0.0f;
            }
    };
    a.reference = [](const std::vector<HostBuffer> &in, std::vector<HostBuffer> &out) {
        const float *p = data_as<float>(in[0]);
        float *o = data_as<float>(out[0]);
        const int64_t W = in[0].dim(0).extent(), H = in[0].dim(1).extent(), N = W * H;
        std::vector<Level> down(kLevels), up(kLevels);
        down[0].w = W, down[0].h = H, down[0].v.resize(size_t(4 * N));
        for (int64_t i = 0; i < N; i++) {
            float al = p[3 * N + i];
            for (int64_t c = 0; c < 3; c++) down[0].v[size_t(c * N + i)] = p[c * N + i] * al;
            down[0].v[size_t(3 * N + i)] = al;
        }
        for (int l = 1; l < kLevels; l++) {
            const Level &f = down[l - 1];
            Level &d = down[l];
            d.w = (f.w + 1) / 2, d.h = (f.h + 1) / 2;
            d.v.resize(size_t(4 * d.w * d.h));
            // The x pass over every row of the finer level, then the y pass.
            Level dx;
            dx.w = d.w, dx.h = f.h, dx.v.resize(size_t(4 * dx.w * dx.h));
            for (int64_t c = 0; c < 4; c++)
                for (int64_t y = 0; y < dx.h; y++)
                    for (int64_t x = 0; x < dx.w; x++)
                        dx.v[size_t((c * dx.h + y) * dx.w + x)] =
                            0.25f * f.at(2 * x - 1, y, c) + 0.5f * f.at(2 * x, y, c) + 0.25f * f.at(2 * x + 1, y, c);
            for (int64_t c = 0; c < 4; c++)
                for (int64_t y = 0; y < d.h; y++)
                    for (int64_t x = 0; x < d.w; x++)
                        d.v[size_t((c * d.h + y) * d.w + x)] =
                            0.25f * dx.at(x, 2 * y - 1, c) + 0.5f * dx.at(x, 2 * y, c) + 0.25f * dx.at(x, 2 * y + 1, c);
        }
        up[kLevels - 1] = down[kLevels - 1];
        for (int l = kLevels - 2; l >= 0; l--) {
            const Level &cs = up[l + 1], &d = down[l];
            Level &u = up[l];
            u.w = d.w, u.h = d.h, u.v.resize(d.v.size());
            // Upsampled x over the coarse level's rows, then y; the nearer coarse pixel is x / 2,
            // the farther one x / 2 - 1 for even x and x / 2 + 1 for odd x.
            Level ux;
            ux.w = d.w, ux.h = cs.h, ux.v.resize(size_t(4 * ux.w * ux.h));
            for (int64_t c = 0; c < 4; c++)
                for (int64_t y = 0; y < ux.h; y++)
                    for (int64_t x = 0; x < ux.w; x++)
                        ux.v[size_t((c * ux.h + y) * ux.w + x)] =
                            0.25f * cs.at(x / 2 - 1 + 2 * (x % 2), y, c) + 0.75f * cs.at(x / 2, y, c);
            for (int64_t c = 0; c < 4; c++)
                for (int64_t y = 0; y < u.h; y++)
                    for (int64_t x = 0; x < u.w; x++) {
                        float coarse = 0.25f * ux.at(x, y / 2 - 1 + 2 * (y % 2), c) + 0.75f * ux.at(x, y / 2, c);
                        u.v[size_t((c * u.h + y) * u.w + x)] = d.at(x, y, c) + (1.0f - d.at(x, y, 3)) * coarse;
                    }
        }
        for (int64_t c = 0; c < 3; c++)
            for (int64_t i = 0; i < N; i++)
                o[c * N + i] = up[0].v[size_t(c * N + i)] / std::max(up[0].v[size_t(3 * N + i)], 1e-6f);
    };
    a.default_tolerance = {1e-4, 1e-5};
    a.test_schedules = {"solder"};
    return a;
}

}  // namespace solder
