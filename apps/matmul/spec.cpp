// matmul: C = A B, f32 [M, K] x [K, N] -> [M, N], M = N = 2048, K = 1024 at full size: each input
// value is read by 2048 results, so the time is in the multiply-adds and in the reuse the schedule
// gets from shared memory and registers, not in DRAM.
#include <algorithm>
#include <vector>

#include "apps/ref_util.h"

namespace solder {

AppSpec matmul_spec() {
    AppSpec a;
    a.name = "matmul";
    a.description = "matrix product C = A B, f32 [M, K] x [K, N] -> [M, N]";
    a.family = "ml";
    a.io = [](AppSize s) {
        const bool full = s == AppSize::Full;
        int64_t M = full ? 2048 : 37, N = full ? 2048 : 45, K = full ? 1024 : 70;
        return AppIO{{{"a", DType::F32, {M, K}}, {"b", DType::F32, {K, N}}}, {{"c", DType::F32, {M, N}}}};
    };
    a.make_inputs = [](std::vector<HostBuffer> &in, uint64_t seed) {
        fill_uniform(in[0], DType::F32, seed, -1, 1);
        fill_uniform(in[1], DType::F32, seed + 1, -1, 1);
    };
    a.reference = [](const std::vector<HostBuffer> &in, std::vector<HostBuffer> &out) {
        const float *A = data_as<float>(in[0]), *B = data_as<float>(in[1]);
        float *C = data_as<float>(out[0]);
        const int64_t K = in[0].dim(0).extent(), M = in[0].dim(1).extent(), N = in[1].dim(0).extent();
        // Each row of C accumulated in double, row by row of B (i-k-j order).
        std::vector<double> row(static_cast<size_t>(N));
        for (int64_t m = 0; m < M; m++) {
            std::fill(row.begin(), row.end(), 0.0);
            for (int64_t k = 0; k < K; k++) {
                const double av = A[m * K + k];
                const float *brow = B + k * N;
                for (int64_t n = 0; n < N; n++) row[size_t(n)] += av * brow[n];
            }
            for (int64_t n = 0; n < N; n++) C[m * N + n] = float(row[size_t(n)]);
        }
    };
    // Sums of 1024 products of values in [-1, 1]: float rounding in any order stays well inside.
    a.default_tolerance = {1e-4, 1e-4};
    a.test_schedules = {"solder"};
    return a;
}

}  // namespace solder
