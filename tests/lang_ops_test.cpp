// The tensor layer computes what its ops promise: each op JIT-run on the host against plain
// loops, on small random inputs (shapes with odd extents, broadcasting, keepdim, bf16).
#include <gtest/gtest.h>

#include <cmath>

#include "apps/ref_util.h"
#include "lang/lang.h"

using namespace solder;
using namespace solder::lang;

namespace {

Halide::Buffer<float> random_f32(const Shape &s, uint64_t seed) {
    std::vector<int> sizes(s.rbegin(), s.rend());
    Halide::Buffer<float> b(sizes);
    Rng r(seed);
    for (auto &v : b) v = float(r.normal());
    return b;
}

// Realizes a tensor whose inputs are bound to buffers; returns the values row-major as f32.
std::vector<float> realize(const Tensor &t) {
    std::vector<int> sizes(t.shape.rbegin(), t.shape.rend());
    std::vector<float> out;
    if (t.dtype == DType::BF16) {
        Halide::Func tf = t.func;
        Halide::Buffer<uint16_t> b = tf.realize(sizes);
        for (auto v : b) out.push_back(bf16_bits_to_f32(v));
    } else {
        Halide::Func f;
        std::vector<Halide::Var> v = halide_order(axis_vars(t.rank()));
        Halide::Func tf = t.func;
        f(v) = Halide::cast<float>(tf(v));
        Halide::Buffer<float> b = f.realize(sizes);
        for (auto x : b) out.push_back(x);
    }
    return out;
}

}  // namespace

TEST(LangOps, BroadcastArithmeticAndScalars) {
    Graph g;
    auto a = g.input("a", DType::F32, {3, 5});
    auto b = g.input("b", DType::F32, {5});
    auto A = random_f32({3, 5}, 1), B = random_f32({5}, 2);
    a.param->set(A);
    b.param->set(B);
    auto out = realize(relu((a - b) * 2.0 + 1.0) / (1.0 + exp(-a)));
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 5; j++) {
            float x = A(j, i), y = B(j);
            float want = std::max((x - y) * 2.0f + 1.0f, 0.0f) / (1.0f + std::exp(-x));
            EXPECT_NEAR(out[i * 5 + j], want, 1e-5f) << i << "," << j;
        }
}

TEST(LangOps, ReductionsWithKeepdim) {
    Graph g;
    auto a = g.input("a", DType::F32, {4, 3, 5});
    auto A = random_f32({4, 3, 5}, 3);
    a.param->set(A);
    auto s = sum(a, {0, 2});        // shape (3)
    auto m = max(a, {1}, true);     // shape (4,1,5)
    auto mu = mean(a, {-1}, true);  // shape (4,3,1)
    EXPECT_EQ(s.shape, (Shape{3}));
    EXPECT_EQ(m.shape, (Shape{4, 1, 5}));
    EXPECT_EQ(mu.shape, (Shape{4, 3, 1}));
    auto S = realize(s), M = realize(m), MU = realize(mu);
    for (int j = 0; j < 3; j++) {
        double want = 0;
        for (int i = 0; i < 4; i++)
            for (int k = 0; k < 5; k++) want += A(k, j, i);
        EXPECT_NEAR(S[j], want, 1e-4);
    }
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 5; k++) {
            float want = -INFINITY;
            for (int j = 0; j < 3; j++) want = std::max(want, A(k, j, i));
            EXPECT_EQ(M[i * 5 + k], want);
        }
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 3; j++) {
            double want = 0;
            for (int k = 0; k < 5; k++) want += A(k, j, i);
            EXPECT_NEAR(MU[i * 3 + j], want / 5, 1e-5);
        }
}

TEST(LangOps, SliceStackCatSelect) {
    Graph g;
    auto a = g.input("a", DType::F32, {4, 6});
    auto A = random_f32({4, 6}, 4);
    a.param->set(A);
    auto sl = slice(a, 1, 1, 6, 2);                                      // columns 1, 3, 5
    auto st = stack({select_index(a, 0, 3), select_index(a, 0, 1)}, 0);  // rows 3, 1
    auto ct = cat({a, sl}, 1);                                           // (4, 9)
    EXPECT_EQ(sl.shape, (Shape{4, 3}));
    EXPECT_EQ(st.shape, (Shape{2, 6}));
    EXPECT_EQ(ct.shape, (Shape{4, 9}));
    auto SL = realize(sl), ST = realize(st), CT = realize(ct);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 3; j++) EXPECT_EQ(SL[i * 3 + j], A(1 + 2 * j, i));
    for (int j = 0; j < 6; j++) {
        EXPECT_EQ(ST[j], A(j, 3));
        EXPECT_EQ(ST[6 + j], A(j, 1));
    }
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 9; j++) EXPECT_EQ(CT[i * 9 + j], j < 6 ? A(j, i) : A(1 + 2 * (j - 6), i));
}

TEST(LangOps, ExpandUnsqueezeBroadcastInDim) {
    Graph g;
    auto a = g.input("a", DType::F32, {3, 1});
    auto A = random_f32({3, 1}, 5);
    a.param->set(A);
    auto e = expand(a, {2, 3, 4});
    auto b = broadcast_in_dim(squeeze(a, 1), {3, 4}, {0});
    auto u = unsqueeze(squeeze(a, 1), 0);
    EXPECT_EQ(u.shape, (Shape{1, 3}));
    auto E = realize(e), B = realize(b), U = realize(u);
    for (int n = 0; n < 2; n++)
        for (int i = 0; i < 3; i++)
            for (int k = 0; k < 4; k++) EXPECT_EQ(E[(n * 3 + i) * 4 + k], A(0, i));
    for (int i = 0; i < 3; i++) {
        EXPECT_EQ(U[i], A(0, i));
        for (int k = 0; k < 4; k++) EXPECT_EQ(B[i * 4 + k], A(0, i));
    }
}

TEST(LangOps, CompositesMatchLoops) {
    Graph g;
    auto x = g.input("x", DType::F32, {3, 7});
    auto w = g.input("w", DType::F32, {7});
    auto X = random_f32({3, 7}, 6), W = random_f32({7}, 7);
    x.param->set(X);
    w.param->set(W);
    auto LN = realize(layer_norm(x, &w, &w, 1e-5));
    auto RN = realize(rms_norm(x, &w, 1e-6));
    auto SM = realize(softmax(x, -1));
    for (int i = 0; i < 3; i++) {
        double mu = 0, var = 0, ss = 0, mx = -1e30, se = 0;
        for (int j = 0; j < 7; j++) mu += X(j, i), ss += X(j, i) * X(j, i), mx = std::max(mx, double(X(j, i)));
        mu /= 7;
        for (int j = 0; j < 7; j++) var += (X(j, i) - mu) * (X(j, i) - mu), se += std::exp(X(j, i) - mx);
        var /= 7;
        for (int j = 0; j < 7; j++) {
            EXPECT_NEAR(LN[i * 7 + j], (X(j, i) - mu) / std::sqrt(var + 1e-5) * W(j) + W(j), 1e-4);
            EXPECT_NEAR(RN[i * 7 + j], X(j, i) / std::sqrt(ss / 7 + 1e-6) * W(j), 1e-4);
            EXPECT_NEAR(SM[i * 7 + j], std::exp(X(j, i) - mx) / se, 1e-6);
        }
    }
}

TEST(LangOps, Bf16TensorsComputeInF32AndRound) {
    Graph g;
    auto x = g.input("x", DType::BF16, {2, 9});
    Halide::Buffer<uint16_t> X(9, 2);
    Rng r(8);
    for (auto &v : X) v = f32_to_bf16_bits(float(r.normal()));
    x.param->set(X);
    auto y = gelu_tanh(x * 3.0);
    EXPECT_EQ(y.dtype, DType::BF16);
    auto s = sum(x, {1});
    EXPECT_EQ(s.dtype, DType::BF16);
    auto Y = realize(y), S = realize(s);
    for (int i = 0; i < 2; i++) {
        float acc = 0;
        for (int j = 0; j < 9; j++) {
            float v = round_to_bf16(bf16_bits_to_f32(X(j, i)) * 3.0f);  // x * 3 is a bf16 tensor
            float want = round_to_bf16(0.5f * v * (1.0f + std::tanh(0.7978845608f * (v + 0.044715f * v * v * v))));
            EXPECT_NEAR(Y[i * 9 + j], want, std::fabs(want) * 1e-2 + 1e-6);
            acc += bf16_bits_to_f32(X(j, i));
        }
        EXPECT_NEAR(S[i], round_to_bf16(acc), std::fabs(acc) * 8e-3);
    }
}

TEST(LangOps, IntegerCastsAndPromotion) {
    Graph g;
    auto a = g.input("a", DType::I64, {5});
    auto c = g.input("c", DType::I32, {5});
    Halide::Buffer<int64_t> A(5);
    Halide::Buffer<int32_t> C(5);
    int64_t av[] = {1, -7, (int64_t(1) << 33) + 5, 100, -3};
    for (int i = 0; i < 5; i++) A(i) = av[i], C(i) = 3 - i;
    a.param->set(A);
    c.param->set(C);
    auto t = cast(a, DType::I32);  // wraps: 2^33 + 5 -> 5
    auto out = mul(add(t, a), c);
    EXPECT_EQ(out.dtype, DType::I64);
    Halide::Buffer<int64_t> O = out.func.realize({5});
    for (int i = 0; i < 5; i++) EXPECT_EQ(O(i), (int64_t(int32_t(av[i])) + av[i]) * int64_t(3 - i));
    auto f = cast(mul(cast(a, DType::F32), 0.5), DType::I32);  // truncates toward zero
    Halide::Buffer<int32_t> F = f.func.realize({5});
    EXPECT_EQ(F(1), -3);
}
