// nvfuser_2146: nvf2146 of torch_peers.py, op for op. T0/T1 are stored as (N2) and T2 as (N0,1,N2),
// where torch has stride-0 views of (N0,N1,N2); the expands below make the same broadcasts.
#include "apps/app_pipeline.h"
#include "lang/lang.h"

namespace solder {

BuiltPipeline nvfuser_2146_pipeline(const AppIO &io) {
    using namespace lang;
    Graph g;
    auto in = lang_inputs(g, io);
    const Tensor &T0 = in[0], &T1 = in[1], &T2 = in[2], &T3 = in[3], &T4 = in[4], &T5 = in[5], &T6 = in[6];
    const Shape S = T3.shape;  // (N0, N1, N2)

    Tensor T7 = cast(T6, DType::F32);
    Tensor T17 = expand(unsqueeze(T4, 2), S);
    Tensor T18 = T7 - T17;
    Tensor T23 = expand(T5, S);
    Tensor T24 = T18 * T23;
    Tensor T25 = cast(expand(T0, S), DType::F32);
    Tensor T26 = T24 * T25;
    Tensor T27 = cast(expand(T1, S), DType::F32);
    Tensor T28 = T26 + T27;
    Tensor T29 = cast(T2, DType::F32);
    Tensor T32 = cast(1.0 + T29, DType::BF16);
    Tensor T38 = cast(expand(T32, S), DType::F32);
    Tensor T39 = cast(T3, DType::F32);
    Tensor T40 = sum(T39, {1});
    Tensor T41 = cast(T40, DType::BF16);
    Tensor T48 = sum(cast(unsqueeze(T41, 1), DType::F32), {1});
    Tensor T49 = cast(T48, DType::BF16);
    Tensor T50 = T38 * T39;
    Tensor T51 = T28 * T39;
    Tensor T53 = cast(sum(T51, {1}), DType::BF16);
    Tensor T61 = cast(sum(cast(unsqueeze(T53, 1), DType::F32), {1}), DType::BF16);
    Tensor T63 = cast(sum(T50, {0, 1}), DType::BF16);
    Tensor T64 = T25 * T50;
    Tensor T65 = T24 * T50;
    Tensor T67 = cast(sum(T65, {0, 1}), DType::BF16);
    Tensor T68 = T23 * T64;
    Tensor T69 = T18 * T64;
    Tensor T70 = sum(T69, {2});
    Tensor T75 = unsqueeze(T70, 2);
    Tensor T76 = -T68;
    Tensor T77 = sum(T76, {2});
    Tensor T82 = unsqueeze(T77, 2);
    Tensor T84 = -0.5 * T75;
    Tensor T86 = pow(T5, 3.0);
    Tensor T87 = T84 * T86;
    Tensor T88 = sum(T82, {2});
    Tensor T89 = sum(T87, {2});
    Tensor T99 = expand(unsqueeze(T88, 2), S);
    Tensor T101 = 0.000976562 * T99;
    Tensor T111 = expand(unsqueeze(T89, 2), S);
    Tensor T121 = expand(unsqueeze(T4, 2), S);
    Tensor T123 = 2.0 * T111;
    Tensor T124 = T7 - T121;
    Tensor T125 = T123 * T124;
    Tensor T128 = T125 * (1.0 / 1024.0);
    Tensor T129 = T101 + T128;
    Tensor T130 = T68 + T129;
    return lang_pipeline("nvfuser_2146", io, in, {T49, T61, T63, T67, cast(T130, DType::BF16)});
}

}  // namespace solder
