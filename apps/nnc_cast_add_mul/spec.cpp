// nnc_cast_add_mul: t = int32(a); out = int64((t + b) * c). a, b int64, c int32; 10000x13000.
// The NNC walkthrough's cast chain: integer arithmetic, so the check is exact.
#include "apps/ref_util.h"

namespace solder {

AppSpec nnc_cast_add_mul_spec() {
    AppSpec a;
    a.name = "nnc_cast_add_mul";
    a.description = "int64((int32(a) + b) * c), casts and integer math";
    a.family = "ml";
    a.io = [](AppSize s) {
        Shape sh = s == AppSize::Full ? Shape{10000, 13000} : Shape{37, 129};
        return AppIO{{{"a", DType::I64, sh}, {"b", DType::I64, sh}, {"c", DType::I32, sh}}, {{"out", DType::I64, sh}}};
    };
    a.make_inputs = [](std::vector<HostBuffer> &in, uint64_t seed) {
        fill_uniform(in[0], DType::I64, seed, 0, 100);
        fill_uniform(in[1], DType::I64, seed + 1, 0, 100);
        fill_uniform(in[2], DType::I32, seed + 2, 0, 100);
    };
    a.reference = [](const std::vector<HostBuffer> &in, std::vector<HostBuffer> &out) {
        const int64_t *A = data_as<int64_t>(in[0]), *B = data_as<int64_t>(in[1]);
        const int32_t *C = data_as<int32_t>(in[2]);
        int64_t *o = data_as<int64_t>(out[0]);
        for (int64_t i = 0, n = numel(in[0]); i < n; i++) {
            int64_t t = int32_t(A[i]);
            // PyTorch promotes int32 + int64 to int64; the product int64 * int32 is int64.
            o[i] = (t + B[i]) * int64_t(C[i]);
        }
    };
    a.default_tolerance = {0, 0};
    return a;
}

}  // namespace solder
