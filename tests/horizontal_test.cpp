// Horizontal fusion of independent 1-D kernels (compute_with on their block loops): only where
// Halide can match the loops, which it does by name.
#include <gtest/gtest.h>

#include "apps/ref_util.h"
#include "tests/support/plan_and_run.h"

using namespace solder;

TEST(Horizontal, RootsWhoseLoopsAreNamedDifferentlyStayApart) {
    // Two independent 1-D outputs of a hand-written pipeline, over vars named differently: merged
    // into one launch only where compute_with can match their loops.
    const int N = 3000;
    Halide::ImageParam in(Halide::Float(32), 1, "kh");
    Halide::Var x("x"), i("i");
    Halide::Func f("h_f"), g("h_g");
    f(x) = in(x) * 2.0f;
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
