// Horizontal fusion of independent 1-D kernels (compute_with on their block loops): only where
// Halide can match the loops, which it does by name.
#include <gtest/gtest.h>

#include "apps/ref_util.h"
#include "lang/lang.h"
#include "tests/support/plan_and_run.h"
#include "tests/support/plan_fields.h"

using namespace solder;

TEST(Horizontal, RootsWhoseLoopsAreNamedDifferentlyStayApart) {
    // Two independent 1-D outputs of a hand-written pipeline, over vars named differently: merged
    // into one launch only where compute_with can match their loops.
    const int N = 3000;
    Halide::ImageParam in(Halide::Float(32), 1, "kh");
    Halide::Var x("x"), i("i");
    Halide::Func f("h_f"), g("h_g");
    f(x) = in(x)*2.0f;
    g(i) = in(i) + 1.0f;
    in.dim(0).set_estimate(0, N);
    f.set_estimate(x, 0, N);
    g.set_estimate(i, 0, N);
    std::vector<Halide::Func> outs{f, g};
    autosched::Plan plan = solder::testing::plan_for(outs, {}, true);
    EXPECT_EQ(plan.kernels.size(), 2u) << plan.to_text();
    EXPECT_NE(plan.to_text().find("named differently"), std::string::npos) << plan.to_text();
    std::vector<HostBuffer> bufs{make_host_buffer({"kh", DType::F32, {N}})};
    std::vector<HostBuffer> out{make_host_buffer({"f", DType::F32, {N}}), make_host_buffer({"g", DType::F32, {N}})};
    float *px = data_as<float>(bufs[0]);
    for (int k = 0; k < N; k++) px[k] = float(k % 13) - 6.0f;
    ASSERT_EQ(solder::testing::apply_compile_and_call(plan, outs, {in}, "opencl", bufs, out), "") << plan.to_text();
    for (int k = 0; k < N; k++) {
        EXPECT_EQ(data_as<float>(out[0])[k], px[k] * 2.0f);
        EXPECT_EQ(data_as<float>(out[1])[k], px[k] + 1.0f);
    }
}

TEST(Horizontal, OneDimensionalReductionsLaunchTogetherStageByStage) {
    // Two column sums over all rows, each the root of its kernel after their shared split-K: their
    // inits run in one launch and their updates (adding the partials) in another.
    const int64_t N0 = 3, N1 = 700, N2 = 40;
    lang::Graph g;
    lang::Tensor x = g.input("kz", DType::F32, {N0, N1, N2});
    // All three share one split-K; the two 1-D ones also launch their roots together.
    lang::Tensor per = lang::sum(x, {1});
    lang::Tensor a = lang::sum(x, {0, 1}), b = lang::sum(x * 2.0, {0, 1});
    lang::set_estimates(per.func, per.shape);
    lang::set_estimates(a.func, a.shape);
    lang::set_estimates(b.func, b.shape);
    std::vector<Halide::Func> outs{a.func, b.func, per.func};
    autosched::Plan plan = solder::testing::plan_for(outs, {}, true);
    const autosched::KernelPlan *merged = nullptr;
    for (auto &k : plan.kernels)
        if (!k.with.empty()) merged = &k;
    ASSERT_TRUE(merged) << plan.to_text();
    // Init, update; plus zeroing and summing the partials where this kernel launches them.
    EXPECT_EQ(merged->launches, solder::testing::split_group(*merged).empty() ? 2 : 4) << plan.to_text();
    std::vector<HostBuffer> in{make_host_buffer({"kz", DType::F32, {N0, N1, N2}})};
    std::vector<HostBuffer> out{make_host_buffer({"a", DType::F32, {N2}}), make_host_buffer({"b", DType::F32, {N2}}),
                                make_host_buffer({"per", DType::F32, {N0, N2}})};
    float *px = data_as<float>(in[0]);
    for (int64_t i = 0; i < N0 * N1 * N2; i++) px[i] = float((i * 37) % 23) / 11.0f - 1.0f;
    std::string source;
    ASSERT_EQ(solder::testing::apply_compile_and_call(plan, outs, {*x.param}, "opencl", in, out, &source), "");
    EXPECT_NE(source.find(".update(0).compute_with("), std::string::npos) << source;
    for (int64_t c = 0; c < N2; c++) {
        double want = 0;
        for (int64_t r = 0; r < N0 * N1; r++) want += px[r * N2 + c];
        EXPECT_NEAR(data_as<float>(out[0])[c], want, 1e-2) << c;
        EXPECT_NEAR(data_as<float>(out[1])[c], 2 * want, 2e-2) << c;
        for (int64_t n = 0; n < N0; n++) {
            double p = 0;
            for (int64_t r = 0; r < N1; r++) p += px[(n * N1 + r) * N2 + c];
            EXPECT_NEAR(data_as<float>(out[2])[n * N2 + c], p, 1e-2) << n << "," << c;
        }
    }
}

TEST(Horizontal, KernelsWalkingFusedReductionsLaunchAlone) {
    // Kahan's compensated sum along each row (a Tuple fold Halide cannot prove associative, walked
    // by each thread of its reader's kernel) and a plain 1-D output beside it: the walk keeps its
    // own blocks and unrolled steps, so it is not launched with the other; nor does a later kernel
    // join a group that launches alone (the other two 1-D outputs still launch together).
    Halide::ImageParam in(Halide::Float(32), 2, "kk");
    Halide::Var y("y");
    Halide::RDom r(0, in.dim(0).extent(), "r");
    Halide::Func acc("kk_acc"), mean("kk_mean"), twice("kk_twice"), thrice("kk_thrice");
    acc(y) = Halide::Tuple(0.0f, 0.0f);
    Halide::Expr next = in(r, y) - acc(y)[1];
    Halide::Expr t = acc(y)[0] + next;
    acc(y) = Halide::Tuple(t, (t - acc(y)[0]) - next);
    mean(y) = acc(y)[0] / Halide::cast<float>(in.dim(0).extent());
    twice(y) = in(0, y) * 2.0f;
    thrice(y) = in(1, y) * 3.0f;
    in.set_estimates({{0, 8192}, {0, 4096}});
    for (auto *f : {&mean, &twice, &thrice}) f->set_estimate(y, 0, 4096);
    std::vector<Halide::Func> outs{mean, twice, thrice};
    autosched::Plan plan = solder::testing::plan_for(outs, {}, true);
    int merged = 0;
    for (auto &k : plan.kernels) {
        if (k.root == "kk_mean") {
            EXPECT_TRUE(k.with.empty()) << plan.to_text();
        }
        if (!k.with.empty()) merged++;
    }
    EXPECT_EQ(merged, 1) << plan.to_text();
    EXPECT_EQ(plan.kernels.size(), 2u) << plan.to_text();
    EXPECT_NE(plan.to_text().find("launched alone, not with other 1-D kernels: its threads walk kk_acc's RDom"),
              std::string::npos)
        << plan.to_text();
}
