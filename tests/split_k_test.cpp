// Split-K: a reduction over many rows whose kernel has too few blocks to fill the GPU (column sums
// with few results) is summed in slices into partials by first launches, then the partials are
// added. The plan says so (launches, partials, a materialized intermediate), the schedule really
// rfactors, and the results match plain loops on OpenCL. Reductions Halide cannot prove
// associative are left whole.
#include <gtest/gtest.h>

#include "apps/ref_util.h"
#include "lang/lang.h"
#include "tests/support/plan_and_run.h"

using namespace solder;
using namespace solder::lang;

namespace {

const autosched::KernelPlan *kernel_splitting(const autosched::Plan &p, const std::string &func) {
    for (auto &k : p.kernels)
        if (k.split_func == func) return &k;
    return nullptr;
}

}  // namespace

TEST(SplitK, ColumnSumsWithFewResultsAreSummedInSlices) {
    const int64_t N0 = 3, N1 = 700, N2 = 40;
    Graph g;
    Tensor x = g.input("kx", DType::F32, {N0, N1, N2});
    Tensor all = sum(x, {0, 1});  // (N2): 2100 rows per result
    Tensor per = sum(x, {1});     // (N0, N2): 700 rows per result
    set_estimates(all.func, all.shape);
    set_estimates(per.func, per.shape);
    std::vector<Halide::Func> outs{all.func, per.func};

    autosched::Plan plan = solder::testing::plan_for(outs, {}, true);
    const auto *ka = kernel_splitting(plan, all.func.name());
    const auto *kp = kernel_splitting(plan, per.func.name());
    ASSERT_TRUE(ka && kp) << plan.to_text();
    EXPECT_EQ(ka->launches, 4);  // zero and sum the partials; the reduction's own init and update
    EXPECT_GE(ka->split_k, 2);
    EXPECT_LE(ka->split_k, 2100 / 64);  // each slice keeps at least 64 rows
    EXPECT_GE(ka->split_blocks, ka->split_k);
    EXPECT_EQ(ka->partials, all.func.name() + "_intm");
    bool listed = false;
    for (auto &m : plan.materialized) listed |= m.func == ka->partials && m.bytes == ka->split_k * N2 * 4;
    EXPECT_TRUE(listed) << plan.to_text();
    EXPECT_NE(plan.to_text().find("split-K"), std::string::npos);
    EXPECT_NE(plan.to_json().find("\"split_k\""), std::string::npos);
    // The host has no blocks to fill: no split there.
    autosched::Plan host = solder::testing::plan_for(outs, {}, false);
    for (auto &k : host.kernels) EXPECT_TRUE(k.split_func.empty()) << host.to_text();

    std::vector<HostBuffer> in{make_host_buffer({"kx", DType::F32, {N0, N1, N2}})};
    std::vector<HostBuffer> out{make_host_buffer({"all", DType::F32, {N2}}),
                                make_host_buffer({"per", DType::F32, {N0, N2}})};
    float *px = data_as<float>(in[0]);
    for (int64_t i = 0; i < N0 * N1 * N2; i++) px[i] = float((i * 7919) % 101) / 50.0f - 1.0f;
    std::string source;
    ASSERT_EQ(solder::testing::apply_compile_and_call(plan, outs, {*x.param}, "opencl", in, out, &source), "");
    EXPECT_NE(source.find(".rfactor("), std::string::npos) << source;
    const float *pa = data_as<float>(out[0]), *pp = data_as<float>(out[1]);
    for (int64_t c = 0; c < N2; c++) {
        double want_all = 0;
        for (int64_t a = 0; a < N0; a++) {
            double want = 0;
            for (int64_t r = 0; r < N1; r++) want += px[(a * N1 + r) * N2 + c];
            EXPECT_NEAR(pp[a * N2 + c], want, 1e-3) << "per " << a << "," << c;
            want_all += want;
        }
        EXPECT_NEAR(pa[c], want_all, 1e-2) << "all " << c;
    }
}

TEST(SplitK, AReductionHalideCannotReassociateIsLeftWhole) {
    // A running blend, f = f / 2 + x: the order of the rows matters, so no slices.
    Halide::ImageParam in(Halide::Float(32), 2, "kin");
    Halide::Var c("c");
    Halide::RDom r(0, 4000, "r");
    Halide::Func blend("blend");
    blend(c) = 0.0f;
    blend(c) = blend(c) * 0.5f + in(c, r);
    in.dim(0).set_estimate(0, 8);
    in.dim(1).set_estimate(0, 4000);
    blend.set_estimate(c, 0, 8);
    autosched::Plan plan = solder::testing::plan_for({blend}, {}, true);
    for (auto &k : plan.kernels) EXPECT_TRUE(k.split_func.empty()) << plan.to_text();
}

TEST(SplitK, AReductionFusedIntoARowKernelIsSplitToo) {
    // The reduction is computed per block of its consumer's row kernel: split there as well.
    const int64_t N0 = 2, N1 = 900, N2 = 24;
    Graph g;
    Tensor x = g.input("kr", DType::F32, {N0, N1, N2});
    Tensor half = sum(x, {1}) * 0.5;  // (N0, N2)
    set_estimates(half.func, half.shape);
    std::vector<Halide::Func> outs{half.func};
    autosched::Plan plan = solder::testing::plan_for(outs, {}, true);
    ASSERT_EQ(plan.kernels.size(), 1u) << plan.to_text();
    EXPECT_EQ(plan.kernels[0].template_name, "row") << plan.to_text();
    ASSERT_FALSE(plan.kernels[0].split_func.empty()) << plan.to_text();
    EXPECT_NE(plan.kernels[0].split_func, plan.kernels[0].root);

    std::vector<HostBuffer> in{make_host_buffer({"kr", DType::F32, {N0, N1, N2}})};
    std::vector<HostBuffer> out{make_host_buffer({"half", DType::F32, {N0, N2}})};
    float *px = data_as<float>(in[0]);
    for (int64_t i = 0; i < N0 * N1 * N2; i++) px[i] = float((i * 104729) % 97) / 48.0f - 1.0f;
    ASSERT_EQ(solder::testing::apply_compile_and_call(plan, outs, {*x.param}, "opencl", in, out), "");
    const float *ph = data_as<float>(out[0]);
    for (int64_t a = 0; a < N0; a++)
        for (int64_t c = 0; c < N2; c++) {
            double want = 0;
            for (int64_t r = 0; r < N1; r++) want += px[(a * N1 + r) * N2 + c];
            EXPECT_NEAR(ph[a * N2 + c], 0.5 * want, 1e-3) << a << "," << c;
        }
}
