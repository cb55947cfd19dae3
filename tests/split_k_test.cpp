// Split-K: a reduction over many rows whose kernel has too few blocks to fill the GPU (column sums
// with few results) is summed in slices into partials by first launches, then the partials are
// added. The plan says so (launches, partials, a materialized intermediate), the schedule really
// rfactors, and the results match plain loops on OpenCL. Reductions Halide cannot prove
// associative are left whole.
#include <gtest/gtest.h>

#include "apps/app_pipeline.h"
#include "apps/nvfuser_2146/shapes.h"
#include "apps/ref_util.h"
#include "runtime/output_check.h"
#include "lang/lang.h"
#include "autosched/apply_plan.h"
#include "autosched/model/reduction_domain.h"
#include "runtime/targets.h"
#include "tests/support/plan_and_run.h"
#include "tests/support/plan_fields.h"

using namespace solder;
using namespace solder::lang;

namespace {

const autosched::KernelPlan *kernel_splitting(const autosched::Plan &p, const std::string &func) {
    for (auto &k : p.kernels)
        if (k.split_func() == func) return &k;
    return nullptr;
}

}  // namespace

// Two column sums over the same points, x (N0, N1, N2): `all` over {0, 1}, `per` over {1}.
struct ColumnSums {
    int64_t N0, N1, N2;
    Graph g;
    Tensor x, all, per;
    std::vector<Halide::Func> outs;
    explicit ColumnSums(int64_t n0 = 3, int64_t n1 = 700, int64_t n2 = 40) : N0(n0), N1(n1), N2(n2) {
        x = g.input("kx", DType::F32, {N0, N1, N2});
        all = sum(x, {0, 1});  // (N2): N0 x N1 rows per result
        per = sum(x, {1});     // (N0, N2): N1 rows per result
        set_estimates(all.func, all.shape);
        set_estimates(per.func, per.shape);
        outs = {all.func, per.func};
    }
    // Runs the plan on OpenCL against plain loops; returns the schedule source.
    std::string run_and_check(const autosched::Plan &plan) {
        std::vector<HostBuffer> in{make_host_buffer({"kx", DType::F32, {N0, N1, N2}})};
        std::vector<HostBuffer> out{make_host_buffer({"all", DType::F32, {N2}}),
                                    make_host_buffer({"per", DType::F32, {N0, N2}})};
        float *px = data_as<float>(in[0]);
        for (int64_t i = 0; i < N0 * N1 * N2; i++) px[i] = float((i * 7919) % 101) / 50.0f - 1.0f;
        std::string source;
        EXPECT_EQ(solder::testing::apply_compile_and_call(plan, outs, {*x.param}, "opencl", in, out, &source), "");
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
        return source;
    }
};

TEST(SplitK, ColumnSumsWithFewResultsAreSummedInSlices) {
    // Alone (horizontal fusion off), each column sum gets its own partials' launches.
    ColumnSums t;
    autosched::PlannerOptions alone;
    alone.horizontal = false;
    autosched::Plan plan = solder::testing::plan_for(t.outs, alone, true);
    const auto *ka = kernel_splitting(plan, t.all.func.name());
    const auto *kp = kernel_splitting(plan, t.per.func.name());
    ASSERT_TRUE(ka && kp) << plan.to_text();
    EXPECT_TRUE(solder::testing::split_group(*ka).empty() && solder::testing::split_group(*kp).empty())
        << plan.to_text();
    EXPECT_EQ(ka->launches, 4);  // zero and sum the partials; the reduction's own init and update
    EXPECT_GE(solder::testing::split_slices(*ka), 2);
    EXPECT_LE(solder::testing::split_slices(*ka), 2100 / 64);  // each slice keeps at least 64 rows
    EXPECT_GE(solder::testing::split_blocks(*ka), solder::testing::split_slices(*ka));
    EXPECT_EQ(solder::testing::partials(*ka), t.all.func.name() + "_intm");
    bool listed = false;
    for (auto &m : plan.materialized)
        listed |= m.func == solder::testing::partials(*ka) && m.bytes == solder::testing::split_slices(*ka) * t.N2 * 4;
    EXPECT_TRUE(listed) << plan.to_text();
    EXPECT_NE(plan.to_text().find("split-K"), std::string::npos);
    EXPECT_NE(plan.to_json().find("\"split_k\""), std::string::npos);
    // The host has no blocks to fill: no split there.
    autosched::Plan host = solder::testing::plan_for(t.outs, {}, false);
    for (auto &k : host.kernels) EXPECT_TRUE(k.split_func().empty()) << host.to_text();

    std::string source = t.run_and_check(plan);
    EXPECT_NE(source.find(".rfactor("), std::string::npos) << source;
    EXPECT_EQ(source.find(".compute_with("), std::string::npos) << source;
}

TEST(SplitK, SumsOverTheSamePointsShareTheirPartialsLaunches) {
    // Both walk x's 3 x 700 x 40 points: one pair of launches sums both sets of partials, cut
    // along the rows (dim 1, which both reduce); `all` keeps dim 2 as a dim of its partials.
    ColumnSums t;
    autosched::Plan plan = solder::testing::plan_for(t.outs, {}, true);
    const auto *ka = kernel_splitting(plan, t.all.func.name());
    const auto *kp = kernel_splitting(plan, t.per.func.name());
    ASSERT_TRUE(ka && kp) << plan.to_text();
    const auto *lead = solder::testing::split_group(*ka).empty() ? kp : ka, *other = lead == ka ? kp : ka;
    ASSERT_EQ(solder::testing::split_group(*lead).size(), 2u) << plan.to_text();
    EXPECT_EQ(solder::testing::split_group(*lead)[0], lead->split_func());
    EXPECT_EQ(solder::testing::split_launched_with(*other), lead->split_func()) << plan.to_text();
    EXPECT_EQ(lead->split->dim, 1);
    EXPECT_EQ(solder::testing::split_slices(*lead), solder::testing::split_slices(*other));
    EXPECT_EQ(solder::testing::split_rows(*lead) * solder::testing::split_slices(*lead) >= t.N1 &&
                  solder::testing::split_rows(*lead) * (solder::testing::split_slices(*lead) - 1) < t.N1,
              true);
    EXPECT_EQ(lead->launches, 4);
    EXPECT_EQ(other->launches, 2);  // only the root's init and update
    // x is read once, by the shared launches.
    const int64_t x_bytes = t.N0 * t.N1 * t.N2 * 4;
    EXPECT_GE(lead->bytes_read, x_bytes);
    EXPECT_LT(other->bytes_read, x_bytes / 10) << plan.to_text();
    for (auto &m : plan.materialized) {
        if (m.func == solder::testing::partials(*ka) || m.func == solder::testing::partials(*kp)) {
            EXPECT_EQ(m.bytes, solder::testing::split_slices(*lead) * t.N0 * t.N2 * 4) << m.func;
        }
    }
    EXPECT_NE(plan.to_text().find("shared split-K"), std::string::npos) << plan.to_text();
    EXPECT_NE(plan.to_json().find("\"shared_with\""), std::string::npos);
    EXPECT_NE(plan.to_json().find("\"launched_with\""), std::string::npos);

    std::string source = t.run_and_check(plan);
    EXPECT_NE(source.find(".rfactor({"), std::string::npos) << source;
    EXPECT_NE(source.find(".compute_with("), std::string::npos) << source;
}

TEST(SplitK, PartialsThatHalideNamedUniqueAreAccepted) {
    // When another Func of the process already has the partials' name `<f>_intm` (a pipeline built
    // before with the same names), Halide names them `<f>_intm` with every '$' made '_' and "$<n>"
    // appended. Applying the plan threw "the plan expects ...". Each case takes the names first.
    Halide::Var x("x");
    std::vector<Halide::Func> taken;
    auto take_partials_names = [&](const autosched::Plan &plan) {
        for (auto &k : plan.kernels) {
            std::vector<std::string> split = solder::testing::split_group(k);
            if (split.empty() && !k.split_func().empty()) split.push_back(k.split_func());
            for (auto &f : split) {
                taken.emplace_back(autosched::partials_name(f));
                taken.back()(x) = 0.0f;
            }
        }
    };
    // 1. A split Func whose name lang made unique (a graph built a second time: sum_1$1), so its
    //    partials become sum_1_1_intm$<n>: planned, applied, run on OpenCL and checked.
    ColumnSums first;
    ColumnSums t;
    autosched::Plan plan = solder::testing::plan_for(t.outs, {}, true);
    bool dollar = false;
    for (auto &k : plan.kernels) dollar |= k.split_func().find('$') != std::string::npos;
    ASSERT_TRUE(dollar) << plan.to_text();
    take_partials_names(plan);
    t.run_and_check(plan);
    // 2. nvfuser_2146's shared split-K (its partials become sum_26_intm$<n> and so on).
    const PipelineBuilder *build = find_pipeline_builder("nvfuser_2146");
    ASSERT_TRUE(build);
    BuiltPipeline p = (*build)(nvfuser_2146_io(2, 512, 256));
    autosched::Plan nplan = solder::testing::plan_for(p.outputs, {}, true);
    const size_t before = taken.size();
    take_partials_names(nplan);
    ASSERT_GT(taken.size(), before + 1) << nplan.to_text();
    EXPECT_NO_THROW(autosched::apply_plan(nplan, p.outputs, make_target("opencl")));
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
    for (auto &k : plan.kernels) EXPECT_TRUE(k.split_func().empty()) << plan.to_text();
}

TEST(SplitK, AReductionFusedIntoARowKernelIsSplitToo) {
    // The reduction is computed per block of its consumer's row kernel: split there as well. (Sizes
    // fixed: at sizes known only at run time, a reduction whose points per block grow with the row,
    // as this one's do, is not computed per block: its shared memory would grow with them.)
    const int64_t N0 = 2, N1 = 900, N2 = 24;
    Graph g;
    Tensor x = g.input("kr", DType::F32, {N0, N1, N2});
    Tensor half = sum(x, {1}) * 0.5;  // (N0, N2)
    set_estimates(half.func, half.shape);
    declare_dense(half.func.output_buffer(), half.shape);
    std::vector<Halide::Func> outs{half.func};
    autosched::Plan plan = solder::testing::plan_for(outs, {}, true);
    ASSERT_EQ(plan.kernels.size(), 1u) << plan.to_text();
    EXPECT_EQ(plan.kernels[0].template_name(), "row") << plan.to_text();
    ASSERT_FALSE(plan.kernels[0].split_func().empty()) << plan.to_text();
    EXPECT_NE(plan.kernels[0].split_func(), plan.kernels[0].root);

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

TEST(SplitK, SharedPartialsOfWideRowsTakeTwoNeighboursPerThread) {
    // At sizes known only at run time the pairs' tails would be guarded, and guarded pairs keep
    // their partials in memory at every step: one column per thread, each member walking its own
    // slice.
    ColumnSums t(2, 640, 512);
    autosched::Plan plan = solder::testing::plan_for(t.outs, {}, true);
    const autosched::KernelPlan *lead = nullptr;
    for (auto &k : plan.kernels)
        if (solder::testing::split_group(k).size() == 2) lead = &k;
    ASSERT_TRUE(lead) << plan.to_text();
    EXPECT_EQ(lead->split->vector, 1) << plan.to_text();
    std::string source = t.run_and_check(plan);
    EXPECT_EQ(source.find(".vectorize("), std::string::npos) << source;
    // With the sizes fixed (as the apps' are), the lanes need no guard: two neighbours per thread,
    // slices that divide the rows, and on CUDA the partials' sums load pairs (the lowered code; no
    // GPU here).
    ColumnSums c(2, 640, 512);
    for (int d = 0; d < 3; d++) c.x.param->dim(d).set_bounds(0, int(d == 0 ? c.N2 : d == 1 ? c.N1 : c.N0));
    c.all.func.output_buffer().dim(0).set_bounds(0, int(c.N2));
    c.per.func.output_buffer().dim(0).set_bounds(0, int(c.N2)).dim(1).set_bounds(0, int(c.N0));
    autosched::Plan cplan = solder::testing::plan_for(c.outs, {}, true);
    lead = nullptr;
    for (auto &k : cplan.kernels)
        if (solder::testing::split_group(k).size() == 2) lead = &k;
    ASSERT_TRUE(lead) << cplan.to_text();
    EXPECT_EQ(lead->split->vector, 2) << cplan.to_text();
    EXPECT_EQ(c.N1 % solder::testing::split_slices(*lead), 0) << cplan.to_text();
    std::string csource = autosched::apply_plan(cplan, c.outs, make_target("cuda"));
    EXPECT_NE(csource.find(".vectorize("), std::string::npos) << csource;
    std::string stmt = ::testing::TempDir() + "/split_k_vectors.stmt";
    Halide::Pipeline(c.outs).compile_to_lowered_stmt(stmt, {*c.x.param}, Halide::Text, make_target("cuda"));
    std::string text = solder::testing::read_file(stmt);
    EXPECT_NE(text.find("ld.global.nc.v2."), std::string::npos) << "no 2-wide loads in the CUDA kernels";
}

TEST(SplitK, TheIterationDomainIsReadOffTheUpdate) {
    ColumnSums t;
    auto all = autosched::reduction_domain(t.all.func.function());
    auto per = autosched::reduction_domain(t.per.func.function());
    ASSERT_TRUE(all && per);
    // x's Halide dims: 0 (the columns, kept by both), 1 (the rows), 2 (N0: kept by `per` only).
    EXPECT_EQ(all->vars, (std::vector<std::string>{"d0", "r1", "r2"}));
    EXPECT_EQ(all->reduced, (std::vector<bool>{false, true, true}));
    EXPECT_EQ(per->vars, (std::vector<std::string>{"d0", "r1", "d1"}));
    ASSERT_TRUE(Halide::Internal::as_const_int(per->rvar_extent[1]));
    EXPECT_EQ(*Halide::Internal::as_const_int(per->rvar_extent[1]), t.N1);
    auto names = autosched::shared_position_names({*all, *per}, 1);
    ASSERT_TRUE(names.has_value());
    EXPECT_EQ(*names, (std::vector<std::string>{"d0", "r1", "d1"}));
    // Position 0 reduced, or a walk one of them keeps: nothing to share.
    EXPECT_FALSE(autosched::shared_position_names({*all, *per}, 2).has_value());
    EXPECT_FALSE(autosched::shared_position_names({*all, *per}, 0).has_value());
}

TEST(SplitK, SumsWhoseLoopsCannotShareNamesKeepTheirOwnLaunches) {
    // Halide-level sums over the same points whose RDoms name the rows differently: compute_with
    // could not fuse their walks, so each keeps its partials' launches (and both stay right).
    const int C = 40, N = 900;
    Halide::ImageParam in(Halide::Float(32), 2, "kn");
    Halide::Var c("c");
    Halide::RDom ra(0, N, "ra"), rb(0, N, "rb");
    Halide::Func a("col_a"), b("col_b");
    a(c) = 0.0f;
    a(c) += in(c, ra);
    b(c) = 0.0f;
    b(c) += in(c, rb) * 2.0f;
    in.dim(0).set_estimate(0, C);
    in.dim(1).set_estimate(0, N);
    a.set_estimate(c, 0, C);
    b.set_estimate(c, 0, C);
    std::vector<Halide::Func> outs{a, b};
    autosched::Plan plan = solder::testing::plan_for(outs, {}, true);
    int split = 0;
    for (auto &k : plan.kernels) {
        if (k.split_func().empty()) continue;
        split++;
        EXPECT_TRUE(solder::testing::split_group(k).empty() && solder::testing::split_launched_with(k).empty())
            << plan.to_text();
    }
    EXPECT_EQ(split, 2) << plan.to_text();
    EXPECT_NE(plan.to_text().find("split-K partials not shared: their loops cannot share names"), std::string::npos)
        << plan.to_text();
    std::vector<HostBuffer> bufs{make_host_buffer({"kn", DType::F32, {N, C}})};
    std::vector<HostBuffer> out{make_host_buffer({"a", DType::F32, {C}}), make_host_buffer({"b", DType::F32, {C}})};
    float *px = data_as<float>(bufs[0]);
    for (int64_t i = 0; i < int64_t(N) * C; i++) px[i] = float((i * 31) % 17) / 8.0f - 1.0f;
    ASSERT_EQ(solder::testing::apply_compile_and_call(plan, outs, {in}, "opencl", bufs, out), "");
    for (int x = 0; x < C; x++) {
        double want = 0;
        for (int r = 0; r < N; r++) want += px[r * C + x];
        EXPECT_NEAR(data_as<float>(out[0])[x], want, 1e-3);
        EXPECT_NEAR(data_as<float>(out[1])[x], 2 * want, 2e-3);
    }
}

TEST(SplitK, Nvfuser2146AtAMiddleSizeSharesItsColumnSumsAndMatchesItsReference) {
    // The app's own graph at a size where its column sums are split (the test size is too small
    // for that): the four share one pair of launches, and every output matches the app's plain C++
    // reference on OpenCL.
    const AppSpec *spec = find_app_spec("nvfuser_2146");
    const PipelineBuilder *build = find_pipeline_builder("nvfuser_2146");
    ASSERT_TRUE(spec && build);
    const int64_t N0 = 2, N1 = 512, N2 = 256;
    AppIO io = nvfuser_2146_io(N0, N1, N2);
    BuiltPipeline p = (*build)(io);
    autosched::Plan plan = solder::testing::plan_for(p.outputs, {}, true);
    const autosched::KernelPlan *lead = nullptr;
    int launched_with = 0;
    for (auto &k : plan.kernels) {
        if (solder::testing::split_group(k).size() == 4) lead = &k;
        launched_with += !solder::testing::split_launched_with(k).empty();
    }
    ASSERT_TRUE(lead) << plan.to_text();
    EXPECT_GE(launched_with, 1) << plan.to_text();

    std::vector<HostBuffer> in, out, ref;
    for (auto &t : io.inputs) in.push_back(make_host_buffer(t));
    for (auto &t : io.outputs) out.push_back(make_host_buffer(t)), ref.push_back(make_host_buffer(t));
    spec->make_inputs(in, 7);
    spec->reference(in, ref);
    for (auto &o : out) poison(o);
    std::vector<Halide::Argument> args(p.inputs.begin(), p.inputs.end());
    ASSERT_EQ(solder::testing::apply_compile_and_call(plan, p.outputs, args, "opencl", in, out), "") << plan.to_text();
    for (size_t i = 0; i < io.outputs.size(); i++) {
        auto it = spec->tolerance.find(io.outputs[i].name);
        OutputCheck c = check_output(io.outputs[i], out[i], ref[i],
                                     it == spec->tolerance.end() ? spec->default_tolerance : it->second);
        EXPECT_TRUE(c.pass) << io.outputs[i].name << ": worst " << c.worst_ratio << " of tolerance at "
                            << c.worst_index;
    }
}

TEST(SplitK, RootsAddingManyPartialsSpreadThemOverLanes) {
    // Two totals over the same 16 x 384 x 48 points (a sum and a sum of squares): their partials
    // are summed in shared launches, and the two 1-D roots, launched together, each add 16 x k
    // partials per result: kPartialLanes threads per result, each adding its share, then the root
    // adds the lanes' sums. Checked on OpenCL against plain loops.
    constexpr int64_t N0 = 16, N1 = 384, N2 = 48;
    Graph g;
    Tensor x = g.input("lx", DType::F32, {N0, N1, N2});
    Tensor a = sum(x, {0, 1}), b = sum(x * x, {0, 1});
    set_estimates(a.func, a.shape);
    set_estimates(b.func, b.shape);
    std::vector<Halide::Func> outs{a.func, b.func};
    autosched::Plan plan = solder::testing::plan_for(outs, {}, true);
    bool together = false;
    for (auto &k : plan.kernels) together |= !k.with.empty();
    ASSERT_TRUE(together) << plan.to_text();
    std::vector<HostBuffer> in{make_host_buffer({"lx", DType::F32, {N0, N1, N2}})};
    std::vector<HostBuffer> out{make_host_buffer({"a", DType::F32, {N2}}), make_host_buffer({"b", DType::F32, {N2}})};
    float *px = data_as<float>(in[0]);
    for (int64_t i = 0; i < N0 * N1 * N2; i++) px[i] = float((i * 7919) % 101) / 50.0f - 1.0f;
    std::string source;
    ASSERT_EQ(solder::testing::apply_compile_and_call(plan, outs, {*x.param}, "opencl", in, out, &source), "");
    EXPECT_NE(source.find("_plane}})"), std::string::npos) << source;
    const float *pa = data_as<float>(out[0]), *pb = data_as<float>(out[1]);
    for (int64_t c = 0; c < N2; c++) {
        double sa = 0, sb = 0;
        for (int64_t r = 0; r < N0 * N1; r++) {
            const double v = px[r * N2 + c];
            sa += v, sb += v * v;
        }
        EXPECT_NEAR(pa[c], sa, 1e-2) << "sum, column " << c;
        EXPECT_NEAR(pb[c], sb, 1e-2) << "sum of squares, column " << c;
    }
}
