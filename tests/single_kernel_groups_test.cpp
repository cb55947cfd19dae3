// single_kernel_groups (on by default): a reduction alone in its kernel along the innermost dim of
// what it reads takes the block-reduction template (one block per result, the reduction split across
// the block's threads) instead of one thread per result; the result still matches plain loops on
// OpenCL. A reduction down the columns keeps one thread per result (reads coalesced across threads).
// Unknown SOLDER_ENABLE words are errors.
#include <gtest/gtest.h>

#include <cstdlib>

#include "apps/ref_util.h"
#include "autosched/model/options.h"
#include "lang/lang.h"
#include "tests/support/plan_and_run.h"
#include "tests/support/plan_fields.h"

using namespace solder;
using namespace solder::lang;

TEST(SingleKernelGroups, ALoneReductionTakesTheBlockReductionTemplate) {
    const int64_t R = 5, C = 3001;  // a row length no block width divides
    Graph g;
    Tensor x = g.input("sx", DType::F32, {R, C});
    Tensor s = sum(x, {-1});
    set_estimates(s.func, s.shape);
    std::vector<Halide::Func> outs{s.func};

    SolderOptions off;
    off.disable("single_kernel_groups");
    EXPECT_EQ(solder::testing::plan_for(outs, off.planner, true).kernels.at(0).template_name(), "pointwise");
    SolderOptions opt;
    autosched::Plan plan = solder::testing::plan_for(outs, opt.planner, true);
    ASSERT_EQ(plan.kernels.size(), 1u);
    ASSERT_EQ(plan.kernels[0].template_name(), "block_reduction") << plan.to_text();

    std::vector<HostBuffer> in{make_host_buffer({"sx", DType::F32, {R, C}})};
    std::vector<HostBuffer> out{make_host_buffer({"s", DType::F32, {R}})};
    float *px = data_as<float>(in[0]);
    for (int64_t i = 0; i < R * C; i++) px[i] = float((i * 7919) % 101) / 50.0f - 1.0f;
    std::string source;
    ASSERT_EQ(solder::testing::apply_compile_and_call(plan, outs, {*x.param}, "opencl", in, out, &source), "");
    // The template really split the reduction: blocks over rows, partials over the threads.
    EXPECT_NE(source.find(".rfactor("), std::string::npos) << source;
    EXPECT_NE(source.find(".gpu_blocks("), std::string::npos) << source;
    const float *ps = data_as<float>(out[0]);
    for (int64_t r = 0; r < R; r++) {
        double want = 0;
        for (int64_t c = 0; c < C; c++) want += px[r * C + c];
        EXPECT_NEAR(ps[r], want, 1e-3) << "row " << r;
    }
}

TEST(SingleKernelGroups, AColumnSumKeepsOneThreadPerResult) {
    Graph g;
    Tensor x = g.input("cx", DType::F32, {4096, 1024});
    Tensor s = sum(x, {0});
    set_estimates(s.func, s.shape);
    autosched::Plan plan = solder::testing::plan_for({s.func}, {}, true);
    ASSERT_EQ(plan.kernels.size(), 1u);
    EXPECT_EQ(plan.kernels[0].template_name(), "pointwise") << plan.to_text();
}

TEST(SingleKernelGroups, UnknownEnableWordsAreErrors) {
    SolderOptions opt;
    try {
        opt.enable("single_kernel_groups,no_such_knob");
        FAIL() << "no error";
    } catch (const std::exception &e) {
        EXPECT_NE(std::string(e.what()).find("no_such_knob"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("single_kernel_groups"), std::string::npos) << e.what();
    }
}

// A sum over the two inner dims (a group normalization's statistics over its planes): the RVars
// are fused into one walk and split across the block's threads; 300 x 1000 points per result, which
// no block width divides.
TEST(SingleKernelGroups, AReductionOverSeveralInnerDimsTakesOneBlockPerResult) {
    using namespace Halide;
    ImageParam in(Float(32), 3, "plane_in");
    RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
    Var n("n");
    Func s("plane_sum");
    s(n) = 0.f;
    s(n) += in(r.x, r.y, n);
    in.set_estimates({{0, 1000}, {0, 300}, {0, 3}});
    s.set_estimates({{0, 3}});
    autosched::Plan plan = solder::testing::plan_for({s}, {}, true);
    ASSERT_EQ(plan.kernels.size(), 1u);
    ASSERT_EQ(plan.kernels[0].template_name(), "block_reduction") << plan.to_text();
    const int64_t N = 3, H = 300, W = 1000;
    std::vector<HostBuffer> ins{make_host_buffer({"plane_in", DType::F32, {N, H, W}})};
    std::vector<HostBuffer> outs{make_host_buffer({"plane_sum", DType::F32, {N}})};
    float *px = data_as<float>(ins[0]);
    for (int64_t i = 0; i < N * H * W; i++) px[i] = float((i * 7919) % 101) / 50.0f - 1.0f;
    std::string source;
    ASSERT_EQ(solder::testing::apply_compile_and_call(plan, {s}, {in}, "opencl", ins, outs, &source), "");
    EXPECT_NE(source.find(".fuse("), std::string::npos) << source;
    const float *ps = data_as<float>(outs[0]);
    for (int64_t k = 0; k < N; k++) {
        double want = 0;
        for (int64_t i = 0; i < H * W; i++) want += px[k * H * W + i];
        EXPECT_NEAR(ps[k], want, 1e-3) << "result " << k;
    }
}
