// Wide accesses in the pointwise and row templates (KernelPlan::vector_width): the bundled apps'
// small sizes are too narrow to get them, so this builds shapes that do (a 2048-wide row norm, a
// 1000-wide pointwise op), checks the plan asks for vectors, and runs them on OpenCL (PoCL)
// against plain loops.
#include <gtest/gtest.h>

#include <cmath>

#include "apps/ref_util.h"
#include "lang/lang.h"
#include "tests/support/plan_and_run.h"
#include "tests/support/plan_fields.h"

using namespace solder;
using namespace solder::lang;

TEST(VectorTemplates, WideRowsAndPointwiseRunCorrectlyOnOpenCL) {
    const int64_t R = 6, C = 2048, P = 3, Q = 1000;
    Graph g;
    Tensor x = g.input("vx", DType::F32, {R, C});
    Tensor y = g.input("vy", DType::F32, {P, Q});
    Tensor norm = rms_norm(x);
    Tensor act = relu(y * 2.0);
    set_estimates(norm.func, norm.shape);
    set_estimates(act.func, act.shape);
    std::vector<Halide::Func> outs{norm.func, act.func};
    autosched::Plan plan = solder::testing::plan_for(outs, {}, true);
    int vectorized = 0;
    for (auto &k : plan.kernels) vectorized += k.vector_width() > 1;
    ASSERT_EQ(vectorized, 2) << plan.to_text();

    std::vector<HostBuffer> in{make_host_buffer({"vx", DType::F32, {R, C}}),
                               make_host_buffer({"vy", DType::F32, {P, Q}})};
    std::vector<HostBuffer> out{make_host_buffer({"n", DType::F32, {R, C}}),
                                make_host_buffer({"a", DType::F32, {P, Q}})};
    float *px = data_as<float>(in[0]), *py = data_as<float>(in[1]);
    for (int64_t i = 0; i < R * C; i++) px[i] = float(std::sin(0.37 * double(i)) * 3.0);
    for (int64_t i = 0; i < P * Q; i++) py[i] = float(std::cos(0.11 * double(i)));
    std::string err = solder::testing::apply_compile_and_call(plan, outs, {*x.param, *y.param}, "opencl", in, out);
    ASSERT_EQ(err, "");
    const float *pn = data_as<float>(out[0]), *pa = data_as<float>(out[1]);
    for (int64_t r = 0; r < R; r++) {
        double ss = 0;
        for (int64_t c = 0; c < C; c++) ss += double(px[r * C + c]) * px[r * C + c];
        double inv = 1.0 / std::sqrt(ss / double(C) + 1e-6);
        for (int64_t c = 0; c < C; c++)
            ASSERT_NEAR(pn[r * C + c], px[r * C + c] * inv, 1e-4) << "row " << r << " col " << c;
    }
    for (int64_t i = 0; i < P * Q; i++) ASSERT_NEAR(pa[i], std::max(0.0f, py[i] * 2.0f), 1e-6) << "element " << i;
}

// A row shorter than a block's 256 accesses (a 36-wide plane: 9 float4s): rows of the next dim
// share the block (16 x 8 threads here, the 7 rows rounded up), instead of 256 threads per row with
// 9 busy. Run on OpenCL with tails in both thread dims.
TEST(VectorTemplates, ShortRowsShareAPointwiseBlock) {
    const int64_t N = 5, H = 7, W = 36;
    Graph g;
    Tensor x = g.input("sx", DType::F32, {N, H, W});
    Tensor act = relu(x * 3.0);
    set_estimates(act.func, act.shape);
    std::vector<Halide::Func> outs{act.func};
    autosched::Plan plan = solder::testing::plan_for(outs, {}, true);
    ASSERT_EQ(plan.kernels.size(), 1u) << plan.to_text();
    const auto *p = plan.kernels[0].get<autosched::PointwiseParams>();
    ASSERT_TRUE(p) << plan.to_text();
    EXPECT_EQ(p->vector_width, 4);
    EXPECT_EQ(p->threads_x, 16);
    EXPECT_EQ(p->threads_y, 8);
    EXPECT_EQ(plan.kernels[0].rows_per_block(), 8);

    std::vector<HostBuffer> in{make_host_buffer({"sx", DType::F32, {N, H, W}})};
    std::vector<HostBuffer> out{make_host_buffer({"a", DType::F32, {N, H, W}})};
    float *px = data_as<float>(in[0]);
    for (int64_t i = 0; i < N * H * W; i++) px[i] = float(std::sin(0.29 * double(i)));
    ASSERT_EQ(solder::testing::apply_compile_and_call(plan, outs, {*x.param}, "opencl", in, out), "");
    const float *pa = data_as<float>(out[0]);
    for (int64_t i = 0; i < N * H * W; i++) ASSERT_NEAR(pa[i], std::max(0.0f, px[i] * 3.0f), 1e-6) << "element " << i;
}
