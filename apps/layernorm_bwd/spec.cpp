// layernorm_bwd: the backward of y = (x - mean) * rstd * gamma + beta over the rows of x [R, C] f32,
// recomputing each row's mean and rstd from x (eps 1e-5) as fused backward kernels do. With
// xhat = (x - mean) * rstd and g = dy * gamma:
//   dx = rstd * (g - mean_c(g) - xhat * mean_c(g * xhat))          (row reductions)
//   dgamma = sum_r(dy * xhat),  dbeta = sum_r(dy)                  (column reductions)
// R = 8192, C = 4096 at full size.
#include <cmath>
#include <vector>

#include "apps/ref_util.h"

namespace solder {

AppSpec layernorm_bwd_spec() {
    AppSpec a;
    a.name = "layernorm_bwd";
    a.description = "LayerNorm backward: dx (row reductions), dgamma and dbeta (column reductions), f32";
    a.family = "ml";
    a.io = [](AppSize s) {
        int64_t R = s == AppSize::Full ? 8192 : 45, C = s == AppSize::Full ? 4096 : 150;
        return AppIO{{{"x", DType::F32, {R, C}}, {"dy", DType::F32, {R, C}}, {"gamma", DType::F32, {C}}},
                     {{"dx", DType::F32, {R, C}}, {"dgamma", DType::F32, {C}}, {"dbeta", DType::F32, {C}}}};
    };
    a.make_inputs = [](std::vector<HostBuffer> &in, uint64_t seed) {
        fill_normal(in[0], DType::F32, seed, 2.0);
        float *x = data_as<float>(in[0]);
        for (int64_t i = 0, n = numel(in[0]); i < n; i++) x[i] += 0.5f;
        fill_normal(in[1], DType::F32, seed + 1);
        fill_normal(in[2], DType::F32, seed + 2);
    };
    a.reference = [](const std::vector<HostBuffer> &in, std::vector<HostBuffer> &out) {
        const float *x = data_as<float>(in[0]), *dy = data_as<float>(in[1]), *gamma = data_as<float>(in[2]);
        float *dx = data_as<float>(out[0]), *dgamma = data_as<float>(out[1]), *dbeta = data_as<float>(out[2]);
        const int64_t C = in[0].dim(0).extent(), R = in[0].dim(1).extent();
        std::vector<double> dg(C, 0.0), db(C, 0.0), xhat(C);
        for (int64_t r = 0; r < R; r++) {
            const float *xr = x + r * C, *dyr = dy + r * C;
            double mu = 0, var = 0;
            for (int64_t c = 0; c < C; c++) mu += xr[c];
            mu /= double(C);
            for (int64_t c = 0; c < C; c++) var += (xr[c] - mu) * (xr[c] - mu);
            const double rstd = 1.0 / std::sqrt(var / double(C) + 1e-5);
            // The Jacobian of the normalization applied to dy * gamma:
            // dx_i = rstd / C * (C g_i - sum_j g_j - xhat_i sum_j g_j xhat_j).
            double sum_g = 0, sum_gx = 0;
            for (int64_t c = 0; c < C; c++) {
                xhat[c] = (xr[c] - mu) * rstd;
                const double g = double(dyr[c]) * gamma[c];
                sum_g += g;
                sum_gx += g * xhat[c];
                dg[c] += dyr[c] * xhat[c];
                db[c] += dyr[c];
            }
            for (int64_t c = 0; c < C; c++)
                dx[r * C + c] = float(rstd / double(C) * (double(C) * dyr[c] * gamma[c] - sum_g - xhat[c] * sum_gx));
        }
        for (int64_t c = 0; c < C; c++) dgamma[c] = float(dg[c]), dbeta[c] = float(db[c]);
    };
    // Sums of 8192 f32 terms (the column reductions) against double: a few 1e-5 relative.
    a.default_tolerance = {1e-4, 1e-4};
    a.test_schedules = {"solder"};
    return a;
}

}  // namespace solder
