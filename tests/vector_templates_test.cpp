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
