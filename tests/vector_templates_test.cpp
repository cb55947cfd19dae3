// Wide accesses in the pointwise and row templates (KernelPlan::vector_width): the bundled apps'
// small sizes are too narrow to get them, so this builds shapes that do (a 2048-wide row norm, a
// 1000-wide pointwise op), checks the plan asks for vectors, and runs them on OpenCL (PoCL)
// against plain loops.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "apps/ref_util.h"
#include "autosched/apply_plan.h"
#include "autosched/planner.h"
#include "lang/lang.h"
#include "runtime/aot_compiler.h"
#include "runtime/halide_error.h"
#include "runtime/pipeline_library.h"
#include "runtime/targets.h"
#include "tests/support/test_processes.h"

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

    Halide::Target tgt = make_target("opencl");
    auto fg = autosched::FuncGraph::build(outs);
    autosched::PlannerOptions opt;
    opt.gpu = true;
    autosched::Plan plan = autosched::plan_pipeline(fg, opt, "vectors");
    int vectorized = 0;
    for (auto &k : plan.kernels) vectorized += k.vector_width > 1;
    ASSERT_EQ(vectorized, 2) << plan.to_text();
    with_halide_errors("apply", [&] { return autosched::apply_plan(plan, outs, tgt); });
    std::string dir = solder::testing::fresh_temp_dir("solder-vectors");
    LibraryRequest req{Halide::Pipeline(outs), {*x.param, *y.param}, tgt, dir, "vectors", {{"app", "vectors"}}};
    std::string so = with_halide_errors("compile", [&] { return compile_pipeline_library(req); });
    std::string err;
    auto lib = PipelineLibrary::open(so, &err);
    ASSERT_TRUE(lib) << err;

    HostBuffer bx = make_host_buffer({"vx", DType::F32, {R, C}}), by = make_host_buffer({"vy", DType::F32, {P, Q}});
    HostBuffer bn = make_host_buffer({"n", DType::F32, {R, C}}), ba = make_host_buffer({"a", DType::F32, {P, Q}});
    float *px = data_as<float>(bx), *py = data_as<float>(by);
    for (int64_t i = 0; i < R * C; i++) px[i] = float(std::sin(0.37 * double(i)) * 3.0);
    for (int64_t i = 0; i < P * Q; i++) py[i] = float(std::cos(0.11 * double(i)));
    bx.set_host_dirty();
    by.set_host_dirty();
    ASSERT_EQ(lib->call({bx.raw_buffer(), by.raw_buffer()}, {bn.raw_buffer(), ba.raw_buffer()}, &err), 0) << err;
    bn.copy_to_host();
    ba.copy_to_host();
    const float *pn = data_as<float>(bn), *pa = data_as<float>(ba);
    for (int64_t r = 0; r < R; r++) {
        double ss = 0;
        for (int64_t c = 0; c < C; c++) ss += double(px[r * C + c]) * px[r * C + c];
        double inv = 1.0 / std::sqrt(ss / double(C) + 1e-6);
        for (int64_t c = 0; c < C; c++)
            ASSERT_NEAR(pn[r * C + c], px[r * C + c] * inv, 1e-4) << "row " << r << " col " << c;
    }
    for (int64_t i = 0; i < P * Q; i++) ASSERT_NEAR(pa[i], std::max(0.0f, py[i] * 2.0f), 1e-6) << "element " << i;
    bx.device_free();
    by.device_free();
    bn.device_free();
    ba.device_free();
    std::filesystem::remove_all(dir);
}
