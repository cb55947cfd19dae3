// embedding_gather: the input layer of a language model: each token id picks a row of the embedding
// table (a gather at data-dependent rows) and the position's embedding is added:
// out[b, t, :] = table[tokens[b, t], :] + pos[t, :]. tokens int32 [B, T], table f32 [V, D],
// pos f32 [T, D]; B = 8, T = 2048, V = 32000, D = 1024 at full size.
#include "apps/ref_util.h"

namespace solder {

AppSpec embedding_gather_spec() {
    AppSpec a;
    a.name = "embedding_gather";
    a.description = "token embedding gather (data-dependent rows) plus positional embedding, f32";
    a.family = "ml";
    a.io = [](AppSize s) {
        bool full = s == AppSize::Full;
        int64_t B = full ? 8 : 3, T = full ? 2048 : 37, V = full ? 32000 : 101, D = full ? 1024 : 45;
        return AppIO{{{"tokens", DType::I32, {B, T}}, {"table", DType::F32, {V, D}}, {"pos", DType::F32, {T, D}}},
                     {{"out", DType::F32, {B, T, D}}}};
    };
    a.make_inputs = [](std::vector<HostBuffer> &in, uint64_t seed) {
        const int64_t V = in[1].dim(1).extent();
        fill_uniform(in[0], DType::I32, seed, 0, double(V));
        fill_normal(in[1], DType::F32, seed + 1);
        fill_normal(in[2], DType::F32, seed + 2, 0.1);
    };
    a.reference = [](const std::vector<HostBuffer> &in, std::vector<HostBuffer> &out) {
        const int32_t *tok = data_as<int32_t>(in[0]);
        const float *table = data_as<float>(in[1]), *pos = data_as<float>(in[2]);
        float *o = data_as<float>(out[0]);
        const int64_t T = in[0].dim(0).extent(), B = in[0].dim(1).extent(), D = in[1].dim(0).extent();
        for (int64_t b = 0; b < B; b++)
            for (int64_t t = 0; t < T; t++) {
                const float *row = table + int64_t(tok[b * T + t]) * D;
                for (int64_t d = 0; d < D; d++) o[(b * T + t) * D + d] = row[d] + pos[t * D + d];
            }
    };
    a.default_tolerance = {0, 0};  // one f32 addition: exact
    a.test_schedules = {"solder"};
    return a;
}

}  // namespace solder
