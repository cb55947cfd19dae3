// stencil_chain: five 2-D stencils in a row over an f32 grayscale image (4K: 2160x3840), each
// stage reading the one before it: 5x5 binomial ([1 4 6 4 1]/16 outer product), 3x3 binomial
// ([1 2 1]/4 outer product), 5x5, 3x3, 5x5, written as full 2-D stencils (25 and 9 taps). Only the
// input is clamped at the borders (repeat_edge): each stage is computed on the region the next one
// reads, which grows by the later stages' radii (8 pixels around the image for the first stage).
#include <algorithm>
#include <cmath>
#include <vector>

#include "apps/ref_util.h"

namespace solder {

AppSpec stencil_chain_spec() {
    AppSpec a;
    a.name = "stencil_chain";
    a.description = "a chain of five 5x5 and 3x3 binomial stencils over a clamped image";
    a.family = "image";
    a.io = [](AppSize s) {
        Shape sh = s == AppSize::Full ? Shape{2160, 3840} : Shape{37, 53};
        return AppIO{{{"in", DType::F32, sh}}, {{"out", DType::F32, sh}}};
    };
    a.make_inputs = [](std::vector<HostBuffer> &in, uint64_t seed) {
        // Smooth ramps, a checkerboard of hard edges and noise, in [0, 1].
        Rng r(seed);
        float *p = data_as<float>(in[0]);
        const int64_t W = in[0].dim(0).extent(), H = in[0].dim(1).extent();
        const int64_t sq = std::max<int64_t>(3, W / 20);
        for (int64_t y = 0; y < H; y++)
            for (int64_t x = 0; x < W; x++) {
                double v = 0.2 + 0.3 * double(x) / double(W) + 0.1 * std::sin(0.05 * double(y));
                v += (((x / sq) + (y / sq)) % 2) ? 0.25 : 0.0;
                v += r.uniform(-0.1, 0.1);
                p[y * W + x] = float(std::min(1.0, std::max(0.0, v)));
            }
    };
    a.reference = [](const std::vector<HostBuffer> &in, std::vector<HostBuffer> &out) {
        const float *p = data_as<float>(in[0]);
        float *o = data_as<float>(out[0]);
        const int64_t W = in[0].dim(0).extent(), H = in[0].dim(1).extent();
        const std::vector<float> w3 = {0.25f, 0.5f, 0.25f}, w5 = {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};
        const int radii[5] = {2, 1, 2, 1, 2};
        // Stage s is needed on the image grown by m = the radii of the stages after it; the input
        // (clamped) on the image grown by all radii. cur holds the previous stage on a (W+2m)x(H+2m)
        // grid whose element (0, 0) is the image's (-m, -m).
        int64_t m = 0;
        for (int r : radii) m += r;
        int64_t CW = W + 2 * m, CH = H + 2 * m;
        std::vector<float> cur(size_t(CW * CH));
        for (int64_t y = 0; y < CH; y++)
            for (int64_t x = 0; x < CW; x++) {
                int64_t ix = std::min(std::max<int64_t>(x - m, 0), W - 1),
                        iy = std::min(std::max<int64_t>(y - m, 0), H - 1);
                cur[y * CW + x] = p[iy * W + ix];
            }
        for (int s = 0; s < 5; s++) {
            const std::vector<float> &w = s % 2 == 0 ? w5 : w3;
            const int r = radii[s];
            const int64_t nm = m - r, NW = W + 2 * nm, NH = H + 2 * nm;
            std::vector<float> next(size_t(NW * NH));
            // next(x, y) is the image's (x - nm, y - nm), which is cur's (x + r, y + r).
            for (int64_t y = 0; y < NH; y++)
                for (int64_t x = 0; x < NW; x++) {
                    float acc = 0;
                    bool first = true;
                    for (int dy = -r; dy <= r; dy++)
                        for (int dx = -r; dx <= r; dx++) {
                            float t = (w[dy + r] * w[dx + r]) * cur[(y + r + dy) * CW + (x + r + dx)];
                            acc = first ? t : acc + t;
                            first = false;
                        }
                    next[y * NW + x] = acc;
                }
            cur.swap(next);
            m = nm, CW = NW, CH = NH;
        }
        std::copy(cur.begin(), cur.end(), o);
    };
    a.default_tolerance = {1e-5, 1e-5};
    a.test_schedules = {"solder"};
    return a;
}

}  // namespace solder
