// Row-kernel shapes beyond one row per block: several rows per block (each reduced by one warp,
// all at once) where the rows give many waves of blocks, and rows staged once per block in shared
// memory (SOLDER_ENABLE=staging). Each is checked in the plan, in the schedule it writes, and
// against plain loops on OpenCL.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "apps/ref_util.h"
#include "lang/lang.h"
#include "schedules/row/row_staging.h"
#include "tests/support/plan_and_run.h"
#include "tests/support/plan_fields.h"

using namespace solder;
using namespace solder::lang;

namespace {

constexpr int64_t R = 512, C = 512;

struct Norm {
    Graph g;
    Tensor x, y;
    std::vector<Halide::Func> outs;
    // keepdim false: the means are 1-D (their rows are d0, the root's d1), broadcast by unsqueeze.
    explicit Norm(bool keepdim = true) {
        x = g.input("rx", DType::F32, {R, C});
        Tensor xs = x * 0.5;  // read by both means through an inlined Func
        auto row_mean = [&](const Tensor &t) { return keepdim ? mean(t, {-1}, true) : unsqueeze(mean(t, {-1}), 1); };
        Tensor m = row_mean(xs);
        Tensor d = xs - m;
        y = d * rsqrt(row_mean(d * d) + 1e-5);
        set_estimates(y.func, y.shape);
        outs = {y.func};
    }
};

// A GPU that 64 blocks fill many times over: 512 rows can go 8 to a block.
autosched::PlannerOptions small_gpu() {
    autosched::PlannerOptions opt;
    opt.device.sms = 1;
    opt.device.blocks_per_sm_to_fill = 1;
    return opt;
}

// Runs the plan on OpenCL and checks every element against a double-precision layer norm.
void expect_layer_norm(const autosched::Plan &plan, Norm &n, std::string *source) {
    std::vector<HostBuffer> in{make_host_buffer({"rx", DType::F32, {R, C}})};
    std::vector<HostBuffer> out{make_host_buffer({"y", DType::F32, {R, C}})};
    float *px = data_as<float>(in[0]);
    for (int64_t i = 0; i < R * C; i++) px[i] = float((i * 7919) % 211) / 40.0f - 2.0f + float(i / C % 7);
    ASSERT_EQ(solder::testing::apply_compile_and_call(plan, n.outs, {*n.x.param}, "opencl", in, out, source), "");
    const float *py = data_as<float>(out[0]);
    for (int64_t r = 0; r < R; r++) {
        double m = 0, v = 0;
        for (int64_t c = 0; c < C; c++) m += 0.5 * px[r * C + c];
        m /= C;
        for (int64_t c = 0; c < C; c++) v += (0.5 * px[r * C + c] - m) * (0.5 * px[r * C + c] - m);
        v /= C;
        for (int64_t c = 0; c < C; c++)
            ASSERT_NEAR(py[r * C + c], (0.5 * px[r * C + c] - m) / std::sqrt(v + 1e-5), 1e-3)
                << "row " << r << " col " << c;
    }
}

}  // namespace

TEST(RowShapes, ManyShortWavesOfRowsGoEightToABlock) {
    Norm n;
    autosched::Plan plan = solder::testing::plan_for(n.outs, small_gpu(), true);
    ASSERT_EQ(plan.kernels.size(), 1u) << plan.to_text();
    EXPECT_EQ(plan.kernels[0].template_name(), "row");
    EXPECT_EQ(plan.kernels[0].rows_per_block(), 8) << plan.to_text();
    EXPECT_NE(plan.to_text().find("8 rows per block"), std::string::npos);
    EXPECT_NE(plan.to_json().find("\"rows_per_block\": 8"), std::string::npos);
    std::string source;
    expect_layer_norm(plan, n, &source);
    // The root's threads: 32 along the row, the 8 rows; the partials: lanes and rows.
    // Names made unique in this process ("mul_11$6") print as C++ identifiers ("mul_11_6").
    std::string root_id = n.y.func.name();
    std::replace(root_id.begin(), root_id.end(), '$', '_');
    // lang names dims from the innermost: the root's rows are d1, and so are the means' (their
    // keepdim's unit dim is d0), which the planner finds by bounds, not by name.
    EXPECT_NE(source.find("split(d1, " + root_id + "_ro"), std::string::npos) << source;
    EXPECT_NE(source.find(".gpu_threads(lane, d1)"), std::string::npos) << source;
    int with_row_dim = 0;
    for (auto &f : plan.funcs)
        if (f.placement == autosched::Placement::ComputeAtBlock) {
            EXPECT_EQ(f.row_dim, "d1") << f.func;
            with_row_dim++;
        }
    EXPECT_GE(with_row_dim, 2);
}

TEST(RowShapes, EachReductionsRowsAreFoundByBoundsNotByName) {
    // The means' rows are their d0 and the root's d1: their threads still follow the rows.
    Norm n(false);
    autosched::Plan plan = solder::testing::plan_for(n.outs, small_gpu(), true);
    ASSERT_EQ(plan.kernels.size(), 1u) << plan.to_text();
    ASSERT_EQ(plan.kernels[0].rows_per_block(), 8) << plan.to_text();
    int means = 0;
    for (auto &f : plan.funcs)
        if (f.placement == autosched::Placement::ComputeAtBlock) {
            EXPECT_EQ(f.row_dim, "d0") << f.func;
            means++;
        }
    EXPECT_GE(means, 2) << plan.to_text();
    EXPECT_NE(plan.to_json().find("\"row_dim\": \"d0\""), std::string::npos);
    std::string source;
    expect_layer_norm(plan, n, &source);
    EXPECT_NE(source.find(".gpu_threads(lane, d0)"), std::string::npos) << source;
}

TEST(RowShapes, FewWavesKeepOneRowPerBlock) {
    Norm n;
    // The H100 profile: 512 blocks of one row are under one wave; 64 of eight would idle SMs.
    autosched::Plan plan = solder::testing::plan_for(n.outs, {}, true);
    ASSERT_EQ(plan.kernels.size(), 1u) << plan.to_text();
    EXPECT_EQ(plan.kernels[0].rows_per_block(), 1) << plan.to_text();
    autosched::Plan host = solder::testing::plan_for(n.outs, small_gpu(), false);
    for (auto &k : host.kernels) EXPECT_EQ(k.rows_per_block(), 1);
}

TEST(RowShapes, StagedRowsAreReadOncePerBlock) {
    Norm n;
    // Off by default.
    for (auto &k : solder::testing::plan_for(n.outs, small_gpu(), true).kernels) EXPECT_TRUE(k.staged().empty());
    autosched::PlannerOptions opt = small_gpu();
    opt.stage_rows = true;
    autosched::Plan plan = solder::testing::plan_for(n.outs, opt, true);
    ASSERT_EQ(plan.kernels.size(), 1u);
    const auto &k = plan.kernels[0];
    // x feeds both means and the output: staged, 8 rows of 512 floats.
    ASSERT_EQ(k.staged().size(), 1u) << plan.to_text();
    EXPECT_EQ(k.staged()[0].func, "rx");
    EXPECT_EQ(k.staged()[0].bytes_per_block, 8 * C * 4);
    EXPECT_NE(plan.to_text().find("staged: rx"), std::string::npos) << plan.to_text();
    std::string source;
    expect_layer_norm(plan, n, &source);
    EXPECT_NE(source.find(".in({"), std::string::npos) << source;

    // Rows too big for the staging budget are not staged.
    autosched::PlannerOptions one_row = opt;
    one_row.device.sms = 132;
    one_row.device.blocks_per_sm_to_fill = 4;
    Graph g;
    Tensor big = g.input("bx", DType::F32, {64, 8192});
    Tensor bs = big * 0.5;
    Tensor yb = bs - mean(bs, {-1}, true);
    set_estimates(yb.func, yb.shape);
    for (auto &kb : solder::testing::plan_for({yb.func}, one_row, true).kernels)
        EXPECT_TRUE(kb.staged().empty()) << "32 KB rows exceed " << autosched::kMaxStagedBytesPerBlock;
}

// A row read over its input's run-time width is staged only where that width is fixed: staged at a
// width known only when the pipeline runs, each block's shared memory would grow with it (planned
// at 512 floats, 2 KB a row; at 16384, 64 KB, past what a block may have).
TEST(RowShapes, RowsOfARunTimeWidthAreNotStaged) {
    for (bool fixed : {false, true}) {
        SCOPED_TRACE(fixed ? "width fixed at 512" : "width from the input");
        Halide::ImageParam in(Halide::Float(32), 2, "swin");
        Halide::Var x("x"), y("y");
        Halide::RDom r(0, in.dim(0).extent(), "r");
        Halide::Func scaled("sw_scaled"), mean("sw_mean"), out("sw_out");
        scaled(x, y) = in(x, y) * 0.5f;
        mean(y) = Halide::sum(scaled(r, y)) / Halide::cast<float>(in.dim(0).extent());
        out(x, y) = scaled(x, y) - mean(y);
        if (fixed) in.dim(0).set_bounds(0, 512);
        in.set_estimates({{0, 512}, {0, 64}});
        out.set_estimates({{0, 512}, {0, 64}});
        autosched::PlannerOptions opt = small_gpu();
        opt.stage_rows = true;
        autosched::Plan plan = solder::testing::plan_for({out}, opt, true);
        ASSERT_EQ(plan.kernels.size(), 1u) << plan.to_text();
        EXPECT_EQ(plan.kernels[0].template_name(), "row") << plan.to_text();
        EXPECT_EQ(plan.kernels[0].staged().empty(), !fixed) << plan.to_text();
    }
}

// Short rows (puzzler's shape, fewer rows): 8 slices of 64-wide rows, each slice layer-normed and
// stacked back. A row is a warp of 2-wide accesses, so a block holds 8 rows; the slice dim is
// unrolled in each thread, so the stack's select keeps one branch per slice.
TEST(RowShapes, ShortRowsFillTheBlockWithRowsAndUnrollTheSlices) {
    constexpr int64_t B = 64, T = 8, D = 64;
    Graph g;
    Tensor x = g.input("sx", DType::F32, {B, T, D});
    std::vector<Tensor> ys;
    for (int64_t i = 0; i < T; i++) ys.push_back(layer_norm(select_index(x, 1, i)));
    Tensor y = stack(ys, 1);
    set_estimates(y.func, y.shape);
    autosched::Plan plan = solder::testing::plan_for({y.func}, small_gpu(), true);
    ASSERT_EQ(plan.kernels.size(), 1u) << plan.to_text();
    const auto &k = plan.kernels[0];
    EXPECT_EQ(k.template_name(), "row");
    EXPECT_EQ(k.vector_width(), 2) << plan.to_text();
    EXPECT_EQ(k.row_threads(), 32) << plan.to_text();
    EXPECT_EQ(k.rows_per_block(), 8) << plan.to_text();
    ASSERT_EQ(solder::testing::row_of(k).unrolled_dims.size(), 1u) << plan.to_text();
    EXPECT_EQ(solder::testing::row_of(k).unrolled_dims[0], (std::pair<int, int64_t>{1, T}));
    EXPECT_NE(plan.to_text().find("8 rows per block, 32 threads per row, dim 1 unrolled"), std::string::npos)
        << plan.to_text();
    // On the H100 profile 64 blocks are under a wave: one row per block, the slices still unrolled.
    autosched::Plan h100 = solder::testing::plan_for({y.func}, {}, true);
    EXPECT_EQ(h100.kernels[0].rows_per_block(), 1) << h100.to_text();
    EXPECT_EQ(solder::testing::row_of(h100.kernels[0]).unrolled_dims.size(), 1u) << h100.to_text();

    std::vector<HostBuffer> in{make_host_buffer({"sx", DType::F32, {B, T, D}})};
    std::vector<HostBuffer> out{make_host_buffer({"y", DType::F32, {B, T, D}})};
    float *px = data_as<float>(in[0]);
    for (int64_t i = 0; i < B * T * D; i++) px[i] = float((i * 7919) % 211) / 40.0f - 2.0f + float(i / D % 5);
    std::string source;
    ASSERT_EQ(solder::testing::apply_compile_and_call(plan, {y.func}, {*x.param}, "opencl", in, out, &source), "");
    EXPECT_NE(source.find(".unroll(d1, 8"), std::string::npos) << source;
    const float *py = data_as<float>(out[0]);
    for (int64_t r = 0; r < B * T; r++) {
        const float *row = px + r * D;
        double m = 0, v = 0;
        for (int64_t c = 0; c < D; c++) m += row[c];
        m /= D;
        for (int64_t c = 0; c < D; c++) v += (row[c] - m) * (row[c] - m);
        v /= D;
        for (int64_t c = 0; c < D; c++)
            ASSERT_NEAR(py[r * D + c], (row[c] - m) / std::sqrt(v + 1e-5), 1e-3) << "row " << r << " col " << c;
    }
}

TEST(RowShapes, RowsInFlightStayWithinHalfTheL2) {
    // Rows are read once per reduction and again for the output: the rows resident at once (8
    // blocks of 256 threads per SM here) stay within half the L2, or the later passes miss it.
    // 1 SM x 8 blocks x r rows x 2 KB within 48 KB: 2 rows per block, not 8.
    Norm n;
    autosched::PlannerOptions opt = small_gpu();
    opt.device.l2_bytes = 96 * 1024;
    autosched::Plan plan = solder::testing::plan_for(n.outs, opt, true);
    ASSERT_EQ(plan.kernels.size(), 1u) << plan.to_text();
    EXPECT_EQ(plan.kernels[0].rows_per_block(), 2) << plan.to_text();
    expect_layer_norm(plan, n, nullptr);
}
