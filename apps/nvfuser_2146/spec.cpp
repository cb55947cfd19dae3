// nvfuser_2146: the layer-norm-backward-like fusion of nvFuser issues 2146/2473 (nvf2146 in
// torch_peers.py), bf16 (56,1024,1024). Inputs are stored once, without the broadcast copies
// torch makes with stride-0 views: T0, T1 (N2) bf16 weight/bias, T2 (N0,1,N2) bf16,
// T3 (N0,N1,N2) bf16 grad, T4 (N0,N1) f32 mean, T5 (N0,N1,1) f32 rstd, T6 (N0,N1,N2) bf16 x.
// Five outputs, all bf16: T49, T61 (N0,N2) sums over N1; T63, T67 (N2) sums over N0,N1;
// T130 (N0,N1,N2) the input gradient. f32 math; .to(bf16) rounds where torch rounds.
#include <cmath>
#include <vector>

#include "apps/nvfuser_2146/shapes.h"
#include "apps/ref_util.h"

namespace solder {

AppIO nvfuser_2146_io(int64_t N0, int64_t N1, int64_t N2) {
    return AppIO{{{"T0", DType::BF16, {N2}},
                  {"T1", DType::BF16, {N2}},
                  {"T2", DType::BF16, {N0, 1, N2}},
                  {"T3", DType::BF16, {N0, N1, N2}},
                  {"T4", DType::F32, {N0, N1}},
                  {"T5", DType::F32, {N0, N1, 1}},
                  {"T6", DType::BF16, {N0, N1, N2}}},
                 {{"T49", DType::BF16, {N0, N2}},
                  {"T61", DType::BF16, {N0, N2}},
                  {"T63", DType::BF16, {N2}},
                  {"T67", DType::BF16, {N2}},
                  {"T130", DType::BF16, {N0, N1, N2}}}};
}

AppSpec nvfuser_2146_spec() {
    AppSpec a;
    a.name = "nvfuser_2146";
    a.description = "layer-norm backward fusion (nvFuser 2146/2473): 5 bf16 outputs, row and column sums";
    a.family = "ml";
    a.io = [](AppSize s) {
        bool full = s == AppSize::Full;
        int64_t N0 = full ? 56 : 3, N1 = full ? 1024 : 40, N2 = full ? 1024 : 24;
        return nvfuser_2146_io(N0, N1, N2);
    };
    a.make_inputs = [](std::vector<HostBuffer> &in, uint64_t seed) {
        const DType types[7] = {DType::BF16, DType::BF16, DType::BF16, DType::BF16,
                                DType::F32,  DType::F32,  DType::BF16};
        for (int i = 0; i < 7; i++) fill_normal(in[i], types[i], seed + uint64_t(i));
    };
    a.reference = [](const std::vector<HostBuffer> &in, std::vector<HostBuffer> &out) {
        const uint16_t *t0 = data_as<uint16_t>(in[0]), *t1 = data_as<uint16_t>(in[1]);
        const uint16_t *t2 = data_as<uint16_t>(in[2]), *t3 = data_as<uint16_t>(in[3]);
        const float *t4 = data_as<float>(in[4]), *t5 = data_as<float>(in[5]);
        const uint16_t *t6 = data_as<uint16_t>(in[6]);
        // Halide dims are reversed: T3 is (N2, N1, N0) there.
        const int64_t N2 = in[3].dim(0).extent(), N1 = in[3].dim(1).extent(), N0 = in[3].dim(2).extent();
        const double c101 = double(0.000976562f);  // torch applies Python scalars in f32
        const double c128 = 1.0 / 1024.0;

        std::vector<double> w(N2), b(N2);  // T25, T27
        for (int64_t k = 0; k < N2; k++) {
            w[k] = bf16_bits_to_f32(t0[k]);
            b[k] = bf16_bits_to_f32(t1[k]);
        }
        std::vector<double> s40(N0 * N2, 0.0), s51(N0 * N2, 0.0);  // sums over N1
        std::vector<double> s50(N2, 0.0), s65(N2, 0.0);            // sums over N0, N1
        std::vector<double> g(N2), xm(N2), t68(N2);                // one row's T38, T18, T68
        uint16_t *o130 = data_as<uint16_t>(out[4]);

        for (int64_t i = 0; i < N0; i++) {
            // T32 = (1.0 + T2.float()).to(bf16), computed in f32 then rounded.
            for (int64_t k = 0; k < N2; k++) g[k] = round_to_bf16(1.0f + bf16_bits_to_f32(t2[i * N2 + k]));
            for (int64_t j = 0; j < N1; j++) {
                const int64_t row = (i * N1 + j) * N2;
                const double mu = t4[i * N1 + j], rs = t5[i * N1 + j];  // T17/T121, T23
                double s70 = 0, s77 = 0;
                for (int64_t k = 0; k < N2; k++) {
                    const double x = bf16_bits_to_f32(t6[row + k]);   // T7
                    const double dy = bf16_bits_to_f32(t3[row + k]);  // T39
                    const double t18 = x - mu;
                    const double t24 = t18 * rs;
                    const double t28 = t24 * w[k] + b[k];
                    const double t50 = g[k] * dy;
                    const double t64 = w[k] * t50;
                    s40[i * N2 + k] += dy;
                    s51[i * N2 + k] += t28 * dy;
                    s50[k] += t50;
                    s65[k] += t24 * t50;
                    t68[k] = rs * t64;
                    s70 += t18 * t64;  // T70
                    s77 -= t68[k];     // T77 = sum(-T68)
                    xm[k] = t18;       // T124 = T7 - T121 = T18
                }
                const double t89 = -0.5 * s70 * (rs * rs * rs);  // T87 = T84 * T5**3 (sum over size 1)
                const double t101 = c101 * s77;
                for (int64_t k = 0; k < N2; k++) {
                    const double t128 = 2.0 * t89 * xm[k] * c128;
                    o130[row + k] = f32_to_bf16_bits(float(t68[k] + (t101 + t128)));
                }
            }
        }
        // T49 = T41 = T40.to(bf16); T61 = T53 = T51.sum(1).to(bf16) (the [:, None, :].sum(1) is an identity).
        uint16_t *o49 = data_as<uint16_t>(out[0]), *o61 = data_as<uint16_t>(out[1]);
        for (int64_t m = 0; m < N0 * N2; m++) {
            o49[m] = f32_to_bf16_bits(float(s40[m]));
            o61[m] = f32_to_bf16_bits(float(s51[m]));
        }
        uint16_t *o63 = data_as<uint16_t>(out[2]), *o67 = data_as<uint16_t>(out[3]);
        for (int64_t k = 0; k < N2; k++) {
            o63[k] = f32_to_bf16_bits(float(s50[k]));
            o67[k] = f32_to_bf16_bits(float(s65[k]));
        }
    };
    // bf16 outputs: one rounding step is at most 2^-7 relative; sums differ by summation order.
    for (const char *o : {"T49", "T61", "T63", "T67", "T130"}) a.tolerance[o] = {2e-2, 1e-2};
    a.default_tolerance = {2e-2, 1e-2};
    return a;
}

}  // namespace solder
