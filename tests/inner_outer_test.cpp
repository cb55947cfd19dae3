// The inner-outer kernel (schedules/inner_outer/inner_outer_plan.h, schedules/inner_outer/inner_outer_schedule.h): nvfuser_2146's column
// sums summed in the row kernel's blocks. Checked in the plan (when the planner takes it, what it
// moves, why it does not by default) and on OpenCL against the app's reference at a size whose
// blocks a small GPU profile accepts.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>

#include "apps/app_pipeline.h"
#include "apps/nvfuser_2146/shapes.h"
#include "schedules/inner_outer/inner_outer_plan.h"
#include "lang/lang.h"
#include "runtime/output_check.h"
#include "tests/support/plan_and_run.h"
#include "tests/support/plan_fields.h"

using namespace solder;
using namespace solder::autosched;

namespace {

Plan plan_nvfuser(PlannerOptions opt) {
    BuiltPipeline p = build_app_pipeline(*find_app_spec("nvfuser_2146"), AppSize::Full);
    return plan_pipeline(FuncGraph::build(p.outputs), opt, "nvfuser_2146");
}

const KernelPlan *inner_outer_kernel(const Plan &p) {
    for (auto &k : p.kernels)
        if (k.template_name() == "inner_outer") return &k;
    return nullptr;
}

bool explains(const Plan &p, const std::string &words) {
    for (auto &e : p.explanations)
        if (e.reason.find(words) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST(InnerOuter, FewestBytesReadsTheInputsOnce) {
    PlannerOptions opt;
    opt.fewest_bytes = true;
    Plan p = plan_nvfuser(opt);
    const KernelPlan *k = inner_outer_kernel(p);
    ASSERT_NE(k, nullptr) << p.to_text();
    EXPECT_EQ(k->root.rfind("cast_63", 0), 0u);
    EXPECT_EQ(solder::testing::split_group(*k).size(), 4u);
    EXPECT_EQ(k->rows_per_block(), kMaxInnerOuterRows);
    // Two 1024-wide bf16 inputs, 32 rows each: more than 48 KB, within the H100's opt-in.
    int64_t staged = 0;
    for (auto &s : k->staged()) staged += s.bytes_per_block;
    EXPECT_EQ(staged, 32 * 1024 * 2 * 2);
    EXPECT_LE(double(p.total_bytes), 1.25 * double(p.min_bytes)) << p.to_text();
    for (auto &m : p.materialized) EXPECT_LT(m.bytes, 56ll * 1024 * 1024 * 4) << m.func;
    // The sums' own kernels only add partials: no zeroing and summing launches of their own.
    for (auto &other : p.kernels) {
        if (&other != k) {
            EXPECT_LT(other.bytes_read, 16ll * 1024 * 1024) << other.name;
        }
    }
    EXPECT_TRUE(explains(p, "taken for fewest_bytes")) << p.to_text();
    EXPECT_NE(p.to_json().find("\"column_sums\""), std::string::npos);
}

TEST(InnerOuter, DefaultPlanKeepsTwoPassesAndSaysWhy) {
    Plan p = plan_nvfuser({});
    EXPECT_EQ(inner_outer_kernel(p), nullptr) << p.to_text();
    EXPECT_TRUE(explains(p, "--enable fewest_bytes takes it")) << p.to_text();
}

TEST(InnerOuter, NoOptInNoInnerOuter) {
    PlannerOptions opt;
    opt.fewest_bytes = true;
    opt.device.shared_memory_optin_bytes = 0;  // Halide's own runtime (the plugin's default)
    Plan p = plan_nvfuser(opt);
    EXPECT_EQ(inner_outer_kernel(p), nullptr) << p.to_text();
    EXPECT_TRUE(explains(p, "shared_memory_optin_kb")) << p.to_text();
}

// The same graph as the random family's, its buffers' extents left to run time.
TEST(InnerOuter, NeedsKnownExtents) {
    using namespace lang;
    Graph g;
    const Shape S{2, 512, 256};
    Tensor x = g.input("ke_x", DType::F32, S), y = g.input("ke_y", DType::F32, S);
    Tensor a = sum(x * y, {1}), b = sum(x, {0, 1}), c = x - mean(x * y, {2}, true);
    std::vector<Halide::Func> outs{a.func, b.func, c.func};
    for (auto *t : {&a, &b, &c}) set_estimates(t->func, t->shape);
    PlannerOptions opt;
    opt.fewest_bytes = true;
    opt.device.sms = 4;
    Plan open = solder::testing::plan_for(outs, opt, true);
    EXPECT_EQ(inner_outer_kernel(open), nullptr) << open.to_text();
    EXPECT_TRUE(explains(open, "extents are not constants")) << open.to_text();
    for (auto *t : {&a, &b, &c})
        for (auto &ob : t->func.output_buffers()) declare_dense(ob, t->shape);
    declare_dense(*x.param, S);
    declare_dense(*y.param, S);
    Plan known = solder::testing::plan_for(outs, opt, true);
    EXPECT_NE(inner_outer_kernel(known), nullptr) << known.to_text();
}

TEST(InnerOuter, HorizontalOffNoInnerOuter) {
    PlannerOptions opt;
    opt.fewest_bytes = true;
    opt.horizontal = false;
    EXPECT_EQ(inner_outer_kernel(plan_nvfuser(opt)), nullptr);
}

// nvfuser_2146 at (4, 512, 512), planned for a GPU of 4 SMs (where its column sums take the shared
// split-K that the inner-outer kernel hosts): 2048 rows, 128 blocks of 16.
TEST(InnerOuter, MatchesTheReferenceOnOpenCL) {
    const AppSpec *spec = find_app_spec("nvfuser_2146");
    AppIO io = nvfuser_2146_io(4, 512, 512);
    BuiltPipeline p = (*find_pipeline_builder("nvfuser_2146"))(io);
    PlannerOptions opt;
    opt.fewest_bytes = true;
    opt.device.sms = 4;
    Plan plan = solder::testing::plan_for(p.outputs, opt, true);
    const KernelPlan *k = inner_outer_kernel(plan);
    ASSERT_NE(k, nullptr) << plan.to_text();
    EXPECT_EQ(k->rows_per_block(), 16);  // 512 columns: 32 lanes x 16 rows, a thread per column
    EXPECT_EQ(k->blocks, 4 * 512 / 16);
    std::vector<HostBuffer> in, out, ref;
    for (auto &t : io.inputs) in.push_back(make_host_buffer(t));
    for (auto &t : io.outputs) out.push_back(make_host_buffer(t)), ref.push_back(make_host_buffer(t));
    spec->make_inputs(in, 7);
    spec->reference(in, ref);
    std::vector<Halide::Argument> args;
    for (auto &ip : p.inputs) args.push_back(ip);
    std::string source;
    ASSERT_EQ(solder::testing::apply_compile_and_call(plan, p.outputs, args, "opencl", in, out, &source), "");
    EXPECT_NE(source.find(".compute_with("), std::string::npos);
    for (size_t i = 0; i < io.outputs.size(); i++) {
        auto it = spec->tolerance.find(io.outputs[i].name);
        OutputCheck c = check_output(io.outputs[i], out[i], ref[i],
                                     it == spec->tolerance.end() ? spec->default_tolerance : it->second);
        EXPECT_TRUE(c.pass) << io.outputs[i].name << ": max abs error " << c.max_abs_err << ", worst " << c.worst_ratio;
    }
}

// A random family of the shape the inner-outer kernel hosts: column sums (over the rows, or over
// the rows and the batch) and a row-normalized output of the same (N0, N1, N2) points, through
// random pointwise terms of two full-size inputs (f32 or bf16) and small per-column and per-row
// inputs. Each graph is planned with fewest_bytes for a GPU of two SMs, run on OpenCL, and
// checked against the same sums in double precision; at least half must take the inner-outer
// kernel (so a planner that silently stops taking it fails here).
namespace {

struct RowColumnGraph {
    lang::Graph g;
    std::vector<lang::Tensor> inputs, outputs;
    std::vector<std::vector<double>> in_values, expected;
    std::string ops;
};

// Values k / 8 for |k| <= 16: exact in bf16 and f32, so the inputs mean the same in both.
double small_value(uint64_t &state) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return double(int64_t((state >> 33) % 33) - 16) / 8.0;
}

RowColumnGraph make_row_column_graph(uint64_t seed) {
    using namespace lang;
    RowColumnGraph r;
    uint64_t st = seed * 7919 + 17;
    auto pick = [&](int n) { return int((st = st * 6364136223846793005ull + 1442695040888963407ull) >> 33) % n; };
    const int64_t N0 = std::vector<int64_t>{1, 2, 4}[size_t(pick(3))],
                  N1 = std::vector<int64_t>{256, 512}[size_t(pick(2))],
                  N2 = std::vector<int64_t>{64, 96, 256}[size_t(pick(3))];
    const DType big = pick(2) ? DType::BF16 : DType::F32;
    const Shape S{N0, N1, N2};
    const std::string p = "rc" + std::to_string(seed) + "_";
    Tensor X = r.g.input(p + "x", big, S), Y = r.g.input(p + "y", big, S);
    Tensor w = r.g.input(p + "w", DType::F32, {N2}), s = r.g.input(p + "s", DType::F32, {N0, N1});
    r.inputs = {X, Y, w, s};
    const int64_t n = N0 * N1 * N2;
    r.in_values = {std::vector<double>(size_t(n)), std::vector<double>(size_t(n)), std::vector<double>(size_t(N2)),
                   std::vector<double>(size_t(N0 * N1))};
    for (auto &v : r.in_values)
        for (auto &e : v) e = small_value(st);
    Tensor Xf = cast(X, DType::F32), Yf = cast(Y, DType::F32);
    Tensor W = expand(w, S), Sr = expand(unsqueeze(s, 2), S);
    // Pointwise terms, each with its value at (i, j, k) in double.
    const auto &xv = r.in_values[0], &yv = r.in_values[1], &wv = r.in_values[2], &sv = r.in_values[3];
    auto at = [&](int64_t i, int64_t j, int64_t k) { return size_t((i * N1 + j) * N2 + k); };
    struct Term {
        Tensor t;
        std::function<double(int64_t, int64_t, int64_t)> v;
        std::string name;
    };
    std::vector<Term> terms{
        {Xf, [&](int64_t i, int64_t j, int64_t k) { return xv[at(i, j, k)]; }, "x"},
        {Xf * Yf, [&](int64_t i, int64_t j, int64_t k) { return xv[at(i, j, k)] * yv[at(i, j, k)]; }, "x*y"},
        {(Xf - Sr) * W,
         [&](int64_t i, int64_t j, int64_t k) { return (xv[at(i, j, k)] - sv[size_t(i * N1 + j)]) * wv[size_t(k)]; },
         "(x-s)*w"},
        {Yf * W + Xf,
         [&](int64_t i, int64_t j, int64_t k) { return yv[at(i, j, k)] * wv[size_t(k)] + xv[at(i, j, k)]; }, "y*w+x"},
    };
    // Two to four column sums.
    const int ncols = 2 + pick(3);
    for (int c = 0; c < ncols; c++) {
        const Term &t = terms[size_t(pick(int(terms.size())))];
        const bool batch = pick(2) == 1;  // over (N0, N1) instead of N1
        r.outputs.push_back(sum(t.t, batch ? std::vector<int>{0, 1} : std::vector<int>{1}));
        std::vector<double> e(size_t(batch ? N2 : N0 * N2), 0.0);
        for (int64_t i = 0; i < N0; i++)
            for (int64_t j = 0; j < N1; j++)
                for (int64_t k = 0; k < N2; k++) e[size_t(batch ? k : i * N2 + k)] += t.v(i, j, k);
        r.expected.push_back(e);
        r.ops += std::string(c ? ", " : "") + "sum(" + t.name + (batch ? ", {0,1})" : ", {1})");
    }
    // The row output: a term minus the mean along the row of another.
    const Term &a = terms[size_t(pick(int(terms.size())))], &b = terms[size_t(pick(int(terms.size())))];
    r.outputs.push_back(a.t - mean(b.t, {2}, true));
    std::vector<double> e(static_cast<size_t>(n));
    for (int64_t i = 0; i < N0; i++)
        for (int64_t j = 0; j < N1; j++) {
            double m = 0;
            for (int64_t k = 0; k < N2; k++) m += b.v(i, j, k);
            m /= double(N2);
            for (int64_t k = 0; k < N2; k++) e[at(i, j, k)] = a.v(i, j, k) - m;
        }
    r.expected.push_back(e);
    r.ops +=
        ", " + a.name + " - mean(" + b.name + ", {2}); shape " + shape_str(S) + (big == DType::BF16 ? " bf16" : " f32");
    // Dense buffers of known extents, as the apps declare theirs (the inner-outer kernel needs
    // them: InnerOuter.NeedsKnownExtents).
    for (auto &o : r.outputs) {
        set_estimates(o.func, o.shape);
        for (auto &ob : o.func.output_buffers()) declare_dense(ob, o.shape);
    }
    for (auto &t : r.inputs) declare_dense(*t.param, t.shape);
    return r;
}

}  // namespace

TEST(InnerOuter, RandomRowAndColumnSumsOnOpenCL) {
    int hosted = 0, graphs = 0;
    for (uint64_t seed = 1; seed <= 6; seed++) {
        RowColumnGraph r = make_row_column_graph(seed);
        SCOPED_TRACE("seed " + std::to_string(seed) + ": " + r.ops);
        std::vector<Halide::Func> outs;
        for (auto &o : r.outputs) outs.push_back(o.func);
        PlannerOptions opt;
        opt.fewest_bytes = true;
        opt.device.sms = 4;
        Plan plan;
        ASSERT_NO_THROW(plan = solder::testing::plan_for(outs, opt, true));
        graphs++;
        if (inner_outer_kernel(plan)) hosted++;
        std::vector<HostBuffer> in, out;
        std::vector<Halide::Argument> args;
        for (size_t i = 0; i < r.inputs.size(); i++) {
            const lang::Tensor &t = r.inputs[i];
            in.push_back(make_host_buffer({t.func.name(), t.dtype, t.shape}));
            args.push_back(*t.param);
            for (size_t e = 0; e < r.in_values[i].size(); e++) {
                const float f = float(r.in_values[i][e]);
                if (t.dtype == DType::BF16) {
                    uint32_t bits;
                    std::memcpy(&bits, &f, 4);
                    static_cast<uint16_t *>(in.back().data())[e] = uint16_t(bits >> 16);  // exact: k / 8
                } else {
                    static_cast<float *>(in.back().data())[e] = f;
                }
            }
        }
        for (auto &o : r.outputs) out.push_back(make_host_buffer({o.func.name(), o.dtype, o.shape}));
        ASSERT_EQ(solder::testing::apply_compile_and_call(plan, outs, args, "opencl", in, out), "") << plan.to_text();
        for (size_t k = 0; k < out.size(); k++) {
            const float *got = static_cast<const float *>(out[k].data());
            double scale = 1;
            for (double v : r.expected[k]) scale = std::max(scale, std::abs(v));
            for (size_t e = 0; e < r.expected[k].size(); e++)
                ASSERT_NEAR(got[e], r.expected[k][e], 1e-5 * scale + 1e-4) << "output " << k << " element " << e << "\n"
                                                                           << plan.to_text();
        }
    }
    std::printf("inner-outer kernel taken by %d of %d random graphs\n", hosted, graphs);
    EXPECT_GE(2 * hosted, graphs) << hosted << " of " << graphs << " graphs took the inner-outer kernel";
}
