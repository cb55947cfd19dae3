// local_laplacian: the local Laplacian filter (Paris, Hasinoff & Kautz, 2011) in its fast form
// (Aubry et al., 2014) on an f32 gray image in [0, 1] ((1536, 2560) at full size), 8 pyramid
// levels and 8 intensity levels g_k = k / 7.
//  - Remapping: r_k(i) = g_k + lut(i - g_k), where the table holds
//    f(d) = beta d + alpha d exp(-d^2 / (2 * 0.1^2)) at d = (j - 256) / 256, j = 0 .. 512 (alpha,
//    beta scalars: 1 and 0.8, detail up and large edges down), read with linear interpolation.
//  - Pyramids: level l + 1 is (w + 1) / 2 by (h + 1) / 2, a [1 2 1] / 4 filter in x then in y
//    around (2x, 2y) with reads clamped to the level; the upsampling is linear (3/4 of the nearer
//    coarse pixel, 1/4 of the farther one), x then y. Gaussian pyramids of the input and of the 8
//    remapped copies; the copies' Laplacian levels are L_l = G_l - up(G_{l+1}).
//  - Each output Laplacian level interpolates, per pixel, between the two copies whose g_k
//    bracket the input's Gaussian level there; the coarsest output level is the input's; the
//    pyramid is collapsed, out_l = L_l + up(out_{l+1}).
#include <algorithm>
#include <cmath>
#include <vector>

#include "apps/ref_util.h"

namespace solder {

namespace {
constexpr int kLevels = 8, kIntensities = 8, kLutHalf = 256;
constexpr float kAlpha = 1.0f, kBeta = 0.8f;

// One pyramid level of `ch` planes: element (k, y, x) at (k * h + y) * w + x; reads clamp x and y.
struct Plane {
    int64_t w = 0, h = 0, ch = 0;
    std::vector<float> v;
    Plane() = default;
    Plane(int64_t w_, int64_t h_, int64_t ch_) : w(w_), h(h_), ch(ch_), v(size_t(w_ * h_ * ch_)) {}
    float &ref(int64_t x, int64_t y, int64_t k) { return v[size_t((k * h + y) * w + x)]; }
    float at(int64_t x, int64_t y, int64_t k) const {
        x = std::min(std::max<int64_t>(x, 0), w - 1);
        y = std::min(std::max<int64_t>(y, 0), h - 1);
        return v[size_t((k * h + y) * w + x)];
    }
};

Plane downsample(const Plane &f) {
    Plane dx((f.w + 1) / 2, f.h, f.ch), d((f.w + 1) / 2, (f.h + 1) / 2, f.ch);
    for (int64_t k = 0; k < f.ch; k++)
        for (int64_t y = 0; y < dx.h; y++)
            for (int64_t x = 0; x < dx.w; x++)
                dx.ref(x, y, k) =
                    0.25f * f.at(2 * x - 1, y, k) + 0.5f * f.at(2 * x, y, k) + 0.25f * f.at(2 * x + 1, y, k);
    for (int64_t k = 0; k < f.ch; k++)
        for (int64_t y = 0; y < d.h; y++)
            for (int64_t x = 0; x < d.w; x++)
                d.ref(x, y, k) =
                    0.25f * dx.at(x, 2 * y - 1, k) + 0.5f * dx.at(x, 2 * y, k) + 0.25f * dx.at(x, 2 * y + 1, k);
    return d;
}

// The coarse level upsampled to w x h.
Plane upsample(const Plane &cs, int64_t w, int64_t h) {
    Plane ux(w, cs.h, cs.ch), u(w, h, cs.ch);
    for (int64_t k = 0; k < cs.ch; k++)
        for (int64_t y = 0; y < ux.h; y++)
            for (int64_t x = 0; x < w; x++)
                ux.ref(x, y, k) = 0.25f * cs.at(x / 2 - 1 + 2 * (x % 2), y, k) + 0.75f * cs.at(x / 2, y, k);
    for (int64_t k = 0; k < cs.ch; k++)
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++)
                u.ref(x, y, k) = 0.25f * ux.at(x, y / 2 - 1 + 2 * (y % 2), k) + 0.75f * ux.at(x, y / 2, k);
    return u;
}
}  // namespace

AppSpec local_laplacian_spec() {
    AppSpec a;
    a.name = "local_laplacian";
    a.description = "local Laplacian filter: 8 remapped copies' Laplacian pyramids (8 levels), interpolated, collapsed";
    a.family = "image";
    a.io = [](AppSize s) {
        Shape sh = s == AppSize::Full ? Shape{1536, 2560} : Shape{37, 53};
        return AppIO{{{"in", DType::F32, sh}},
                     {{"out", DType::F32, sh}},
                     {{"alpha", DType::F32, double(kAlpha)}, {"beta", DType::F32, double(kBeta)}}};
    };
    a.make_inputs = [](std::vector<HostBuffer> &in, uint64_t seed) {
        // Large soft shapes with edges, fine texture and noise, in [0, 1].
        Rng r(seed);
        float *p = data_as<float>(in[0]);
        const int64_t W = in[0].dim(0).extent(), H = in[0].dim(1).extent();
        for (int64_t y = 0; y < H; y++)
            for (int64_t x = 0; x < W; x++) {
                double v = 0.2 + 0.5 * double(x) / double(W) + (((x * 5 / W) + (y * 3 / H)) % 2 ? 0.2 : 0.0);
                v += 0.05 * std::sin(double(x) * 0.7) * std::sin(double(y) * 0.5) + r.uniform(-0.03, 0.03);
                p[y * W + x] = float(std::min(1.0, std::max(0.0, v)));
            }
    };
    a.reference = [](const std::vector<HostBuffer> &in, std::vector<HostBuffer> &out) {
        const float *p = data_as<float>(in[0]);
        float *o = data_as<float>(out[0]);
        const int64_t W = in[0].dim(0).extent(), H = in[0].dim(1).extent();
        const int K = kIntensities;
        std::vector<float> lut(2 * kLutHalf + 1);
        for (int j = 0; j <= 2 * kLutHalf; j++) {
            float d = float(j - kLutHalf) * (1.0f / float(kLutHalf));
            lut[size_t(j)] = kBeta * d + kAlpha * d * std::exp(-(d * d) * (1.0f / (2.0f * 0.1f * 0.1f)));
        }
        std::vector<Plane> gin(kLevels), gp(kLevels);
        gin[0] = Plane(W, H, 1);
        gp[0] = Plane(W, H, K);
        for (int64_t y = 0; y < H; y++)
            for (int64_t x = 0; x < W; x++) {
                float i = p[y * W + x];
                gin[0].ref(x, y, 0) = i;
                for (int k = 0; k < K; k++) {
                    float g = float(k) * (1.0f / float(K - 1));
                    float idx = (i - g + 1.0f) * float(kLutHalf);
                    float fl = std::floor(idx);
                    int64_t j0 = std::min<int64_t>(std::max<int64_t>(int64_t(fl), 0), 2 * kLutHalf - 1);
                    float t = idx - float(j0);
                    gp[0].ref(x, y, k) = g + ((1.0f - t) * lut[size_t(j0)] + t * lut[size_t(j0 + 1)]);
                }
            }
        for (int l = 1; l < kLevels; l++) gin[l] = downsample(gin[l - 1]), gp[l] = downsample(gp[l - 1]);
        Plane cur = gin[kLevels - 1];
        for (int l = kLevels - 2; l >= 0; l--) {
            const int64_t w = gin[l].w, h = gin[l].h;
            Plane lap_up = upsample(gp[l + 1], w, h), up = upsample(cur, w, h), next(w, h, 1);
            for (int64_t y = 0; y < h; y++)
                for (int64_t x = 0; x < w; x++) {
                    float li = gin[l].at(x, y, 0) * float(K - 1);
                    int64_t k0 = std::min<int64_t>(std::max<int64_t>(int64_t(std::floor(li)), 0), K - 2);
                    float t = li - float(k0);
                    float l0 = gp[l].at(x, y, k0) - lap_up.at(x, y, k0),
                          l1 = gp[l].at(x, y, k0 + 1) - lap_up.at(x, y, k0 + 1);
                    next.ref(x, y, 0) = ((1.0f - t) * l0 + t * l1) + up.at(x, y, 0);
                }
            cur = next;
        }
        std::copy(cur.v.begin(), cur.v.end(), o);
    };
    a.default_tolerance = {1e-4, 1e-5};
    a.test_schedules = {"solder"};
    return a;
}

}  // namespace solder
