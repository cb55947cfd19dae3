// group_norm: GroupNorm (Wu & He, 2018) of an f32 activation x [N, C, H, W] with G groups of C/G
// channels: each (n, group)'s mean and variance over its C/G * H * W values (a reduction over three
// dimensions), then per-channel gamma and beta. N = 32, C = 256, G = 32, H = W = 64 at full size.
#include <cmath>

#include "apps/ref_util.h"

namespace solder {

namespace {
constexpr int kGroups = 32;  // the scalar parameter "groups"
}  // namespace

AppSpec group_norm_spec() {
    AppSpec a;
    a.name = "group_norm";
    a.description = "GroupNorm: per-(sample, group) statistics over channels x H x W, f32";
    a.family = "ml";
    a.io = [](AppSize s) {
        bool full = s == AppSize::Full;
        // (C must be a multiple of the group count: 3 channels per group at the small size.)
        int64_t N = full ? 32 : 3, C = full ? 256 : 96, H = full ? 64 : 9, W = full ? 64 : 11;
        return AppIO{{{"x", DType::F32, {N, C, H, W}}, {"gamma", DType::F32, {C}}, {"beta", DType::F32, {C}}},
                     {{"out", DType::F32, {N, C, H, W}}},
                     {{"groups", DType::I32, double(kGroups)}}};
    };
    a.make_inputs = [](std::vector<HostBuffer> &in, uint64_t seed) {
        // An offset mean per sample so that the centering matters.
        fill_normal(in[0], DType::F32, seed, 2.0);
        float *x = data_as<float>(in[0]);
        const int64_t per_n = int64_t(in[0].dim(0).extent()) * in[0].dim(1).extent() * in[0].dim(2).extent();
        for (int64_t i = 0, n = numel(in[0]); i < n; i++) x[i] += float(0.5 * double(i / per_n) + 1.0);
        fill_normal(in[1], DType::F32, seed + 1);
        fill_normal(in[2], DType::F32, seed + 2);
    };
    a.reference = [](const std::vector<HostBuffer> &in, std::vector<HostBuffer> &out) {
        const int64_t G = kGroups;
        const float *x = data_as<float>(in[0]), *gamma = data_as<float>(in[1]), *beta = data_as<float>(in[2]);
        float *o = data_as<float>(out[0]);
        const int64_t W = in[0].dim(0).extent(), H = in[0].dim(1).extent(), C = in[0].dim(2).extent(),
                      N = in[0].dim(3).extent(), cpg = C / G, hw = H * W, count = cpg * hw;
        for (int64_t n = 0; n < N; n++)
            for (int64_t g = 0; g < G; g++) {
                // The group's values are contiguous: channels g*cpg .. (g+1)*cpg of sample n.
                const int64_t base = (n * C + g * cpg) * hw;
                double mu = 0, var = 0;
                for (int64_t i = 0; i < count; i++) mu += x[base + i];
                mu /= double(count);
                for (int64_t i = 0; i < count; i++) var += (x[base + i] - mu) * (x[base + i] - mu);
                var /= double(count);
                const double rstd = 1.0 / std::sqrt(var + 1e-5);
                for (int64_t i = 0; i < count; i++) {
                    const int64_t c = g * cpg + i / hw;
                    o[base + i] = float((x[base + i] - mu) * rstd * gamma[c] + beta[c]);
                }
            }
    };
    a.default_tolerance = {1e-4, 1e-5};
    a.test_schedules = {"solder"};
    return a;
}

}  // namespace solder
