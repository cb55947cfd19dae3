// Row kernels over long rows reduced by warps (schedules/row/warp_rows.h, schedules/writer/warp_reduction.h):
// the planner's choice and its reasons, the shuffle tree in the CUDA code (no GPU here: the
// lowered code), and the same plan run on OpenCL, where the reductions keep the shared-memory tree
// over the planned threads. The H100 runs check the CUDA results against the apps' references.
#include <gtest/gtest.h>

#include <cmath>
#include <iterator>
#include <regex>

#include "apps/ref_util.h"
#include "lang/lang.h"
#include "runtime/targets.h"
#include "tests/support/plan_and_run.h"
#include "tests/support/plan_fields.h"

using namespace solder;
using namespace solder::lang;

namespace {

// softmax over rows of `cols` f32: two dependent row reductions (max, then sum of exps).
struct Softmax {
    Graph g;
    Tensor x, y;
    std::vector<Halide::Func> outs;
    int64_t rows, cols;
    Softmax(int64_t r, int64_t c, DType t = DType::F32) : rows(r), cols(c) {
        x = g.input("wx", t, {r, c});
        y = softmax(cast(x, DType::F32));
        set_estimates(y.func, y.shape);
        outs = {y.func};
    }
};

// The PTX's shuffles that read the lane `lanes` further down (one per reduction per tree level).
int64_t shuffles_down(const std::string &ptx, int lanes) {
    std::regex down("shfl\\.sync\\.down\\.b32\\s+%r\\d+, %r\\d+, " + std::to_string(lanes) + ",");
    return std::distance(std::sregex_iterator(ptx.begin(), ptx.end(), down), std::sregex_iterator());
}

bool explained(const autosched::Plan &plan, const std::string &words) {
    for (auto &e : plan.explanations)
        if (e.reason.find(words) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST(WarpRows, LongRowsAreReducedByWarpsAndOddOnesSayWhyNot) {
    Softmax s(6, 4096);
    autosched::Plan plan = solder::testing::plan_for(s.outs, {}, true);
    ASSERT_EQ(plan.kernels.size(), 1u) << plan.to_text();
    const auto &k = plan.kernels[0];
    // 4096 elements: 128 threads of 32 each, 8-byte accesses (2 f32).
    EXPECT_EQ(solder::testing::row_warps(k), 4) << plan.to_text();
    EXPECT_EQ(k.vector_width(), 2) << plan.to_text();
    EXPECT_EQ(solder::testing::row_of(k).row_extent, 4096);
    EXPECT_NE(plan.to_text().find("4 warps per row"), std::string::npos) << plan.to_text();
    EXPECT_NE(plan.to_json().find("\"row_warps\": 4"), std::string::npos);
    // 16384: 8 warps (256 threads) at most. (256 rows: with a few, each row's reductions are cut
    // into slices by kernels of their own, schedules/total_reduction.)
    Softmax wide(256, 16384);
    autosched::Plan wp = solder::testing::plan_for(wide.outs, {}, true);
    EXPECT_EQ(solder::testing::row_warps(wp.kernels[0]), 8) << wp.to_text();
    // 1024: 2 warps (64 threads of 16), the fewest.
    Softmax k1(6, 1024);
    EXPECT_EQ(solder::testing::row_warps(solder::testing::plan_for(k1.outs, {}, true).kernels[0]), 2);
    // Short rows keep the shared-memory tree by design: no note about it.
    Softmax narrow(6, 512);
    autosched::Plan np = solder::testing::plan_for(narrow.outs, {}, true);
    EXPECT_EQ(solder::testing::row_warps(np.kernels[0]), 0) << np.to_text();
    EXPECT_FALSE(explained(np, "warp")) << np.to_text();
    // A row the block's lanes do not divide evenly (4100 = 4 x 1025): no warps either.
    Softmax odd(6, 4100);
    autosched::Plan op = solder::testing::plan_for(odd.outs, {}, true);
    EXPECT_EQ(solder::testing::row_warps(op.kernels[0]), 0) << op.to_text();
    EXPECT_TRUE(explained(op, "do not split evenly over warps")) << op.to_text();
    // The host plan has no warps.
    EXPECT_EQ(solder::testing::row_warps(solder::testing::plan_for(s.outs, {}, false).kernels[0]), 0);
}

TEST(WarpRows, ReductionsWiderThan32BitsKeepTheTree) {
    Graph g;
    Tensor x = g.input("wi", DType::I64, {256, 4096});
    Tensor y = x - sum(x, {-1}, true);
    set_estimates(y.func, y.shape);
    autosched::Plan plan = solder::testing::plan_for({y.func}, {}, true);
    ASSERT_EQ(plan.kernels.size(), 1u) << plan.to_text();
    EXPECT_EQ(solder::testing::row_warps(plan.kernels[0]), 0) << plan.to_text();
    EXPECT_TRUE(explained(plan, "a warp shuffle moves 32 bits")) << plan.to_text();
}

TEST(WarpRows, CudaCodeSumsEachWarpWithAShuffleTree) {
    Softmax s(6, 4096, DType::BF16);
    autosched::Plan plan = solder::testing::plan_for(s.outs, {}, true);
    ASSERT_EQ(solder::testing::row_warps(plan.kernels[0]), 4) << plan.to_text();
    std::string source = autosched::apply_plan(plan, s.outs, make_target("cuda"));
    EXPECT_NE(source.find(".gpu_lanes("), std::string::npos) << source;
    // Fixed sizes, as the apps' are: the walk needs no guards.
    s.x.param->dim(0).set_bounds(0, 4096).dim(1).set_bounds(0, 6).dim(1).set_stride(4096);
    s.y.func.output_buffer().dim(0).set_bounds(0, 4096).dim(1).set_bounds(0, 6).dim(1).set_stride(4096);
    std::string stmt = ::testing::TempDir() + "/warp_rows.stmt";
    Halide::Pipeline(s.outs).compile_to_lowered_stmt(stmt, {*s.x.param}, Halide::Text, make_target("cuda"));
    std::string ptx = solder::testing::read_file(stmt);
    // Both reductions (max, sum): lanes 16, 8, 4 and 2 apart, each level once per reduction.
    for (int d : {16, 8, 4, 2}) EXPECT_EQ(shuffles_down(ptx, d), 2) << "lanes " << d << " apart";
    // The partials live in registers: nothing spilled to a local stack frame.
    EXPECT_EQ(ptx.find(".local"), std::string::npos);
    // Accesses of 8 bytes of the f32 output (2 elements), so 2 bf16 per load.
    EXPECT_NE(ptx.find("ld.global.nc.v2.b16"), std::string::npos);
}

TEST(WarpRows, TheSamePlanRunsOnOpenCLWithTheTreeOverItsThreads) {
    Softmax s(5, 4096);
    autosched::Plan plan = solder::testing::plan_for(s.outs, {}, true);
    ASSERT_EQ(solder::testing::row_warps(plan.kernels[0]), 4) << plan.to_text();
    std::vector<HostBuffer> in{make_host_buffer({"wx", DType::F32, {s.rows, s.cols}})};
    std::vector<HostBuffer> out{make_host_buffer({"y", DType::F32, {s.rows, s.cols}})};
    float *px = data_as<float>(in[0]);
    for (int64_t i = 0; i < s.rows * s.cols; i++) px[i] = float((i * 7919) % 211) / 30.0f - 3.0f + float(i / s.cols);
    std::string source;
    ASSERT_EQ(solder::testing::apply_compile_and_call(plan, s.outs, {*s.x.param}, "opencl", in, out, &source), "");
    EXPECT_EQ(source.find(".gpu_lanes("), std::string::npos) << source;
    const float *py = data_as<float>(out[0]);
    for (int64_t r = 0; r < s.rows; r++) {
        double m = -1e30, z = 0;
        for (int64_t c = 0; c < s.cols; c++) m = std::max(m, double(px[r * s.cols + c]));
        for (int64_t c = 0; c < s.cols; c++) z += std::exp(double(px[r * s.cols + c]) - m);
        for (int64_t c = 0; c < s.cols; c++)
            ASSERT_NEAR(py[r * s.cols + c], std::exp(double(px[r * s.cols + c]) - m) / z, 1e-6)
                << "row " << r << " col " << c;
    }
}

TEST(WarpRows, RowGraphsOfSeveralShapesCompileForCuda) {
    // No GPU here: each graph's plan is applied and lowered to PTX, which must hold the shuffles.
    // (The H100 runs check the apps' results.)
    auto lower = [](std::vector<Halide::Func> outs, const Halide::Argument &arg, const std::string &name) {
        autosched::Plan plan = solder::testing::plan_for(outs, {}, true);
        EXPECT_GT(solder::testing::row_warps(plan.kernels.at(0)), 0) << name << "\n" << plan.to_text();
        autosched::apply_plan(plan, outs, make_target("cuda"));
        std::string stmt = ::testing::TempDir() + "/warp_rows_" + name + ".stmt";
        Halide::Pipeline(outs).compile_to_lowered_stmt(stmt, {arg}, Halide::Text, make_target("cuda"));
        EXPECT_NE(solder::testing::read_file(stmt).find("shfl.sync.down"), std::string::npos) << name;
    };
    for (bool keepdim : {true, false}) {
        // Layer norm with 1-D means (their row is d0) or kept dims: two dependent reductions.
        Graph g;
        Tensor x = g.input("lx", DType::F32, {8, 4096});
        auto row_mean = [&](const Tensor &t) { return keepdim ? mean(t, {-1}, true) : unsqueeze(mean(t, {-1}), 1); };
        Tensor d = x - row_mean(x);
        Tensor y = d * rsqrt(row_mean(d * d) + 1e-5);
        set_estimates(y.func, y.shape);
        lower({y.func}, *x.param, keepdim ? "layer_norm_keepdim" : "layer_norm_1d");
    }
    {
        // Two independent sums of one row and its max, 1024 wide (2 warps).
        Graph g;
        Tensor x = g.input("sx", DType::F32, {16, 1024});
        Tensor y = x * sum(x, {-1}, true) + sum(x * x, {-1}, true) + max(x, {-1}, true);
        set_estimates(y.func, y.shape);
        lower({y.func}, *x.param, "three_sums");
    }
    {
        Softmax s(3, 2048, DType::BF16);
        lower(s.outs, *s.x.param, "softmax_2048");
    }
}

namespace {

// puzzler_slices' shape: each of `slices` slices of a row normalized over its 64 values, then tanh,
// stacked back. 16 x 64 = 1024 elements per row: one warp per block, the slices unrolled.
struct Slices {
    Graph g;
    Tensor x, y;
    std::vector<Halide::Func> outs;
    int64_t rows, slices;
    Slices(int64_t r, int64_t s) : rows(r), slices(s) {
        x = g.input("px", DType::F32, {r, s, 64});
        std::vector<Tensor> ys;
        for (int64_t i = 0; i < s; i++) ys.push_back(tanh(layer_norm(select_index(x, 1, i))));
        y = stack(ys, 1);
        set_estimates(y.func, y.shape);
        outs = {y.func};
    }
    // Fixed sizes, as the apps' are. (PoCL 3.1 did not finish compiling the unguarded-size version's
    // 32 block-level reductions under block-uniform conditions in 10 minutes: docs/halide-21-notes.md.)
    void fix_sizes() {
        x.param->dim(0).set_bounds(0, 64).dim(1).set_bounds(0, int(slices)).dim(1).set_stride(64);
        x.param->dim(2).set_bounds(0, int(rows)).dim(2).set_stride(int(64 * slices));
        auto ob = y.func.output_buffer();
        ob.dim(0).set_bounds(0, 64).dim(1).set_bounds(0, int(slices)).dim(1).set_stride(64);
        ob.dim(2).set_bounds(0, int(rows)).dim(2).set_stride(int(64 * slices));
    }
};

}  // namespace

TEST(WarpRows, ShortRowsWithUnrolledSlicesTakeOneWarpPerBlock) {
    Slices s(6, 16);
    autosched::Plan plan = solder::testing::plan_for(s.outs, {}, true);
    ASSERT_EQ(plan.kernels.size(), 1u) << plan.to_text();
    const auto &k = plan.kernels[0];
    // 64 values per slice: one warp of 32 lanes, 2 values each, all 16 slices in the block.
    EXPECT_EQ(solder::testing::row_warps(k), 1) << plan.to_text();
    EXPECT_EQ(k.vector_width(), 2) << plan.to_text();
    EXPECT_EQ(k.row_threads(), 0) << plan.to_text();
    EXPECT_EQ(k.rows_per_block(), 1) << plan.to_text();
    EXPECT_NE(plan.to_text().find("1 warp per row"), std::string::npos) << plan.to_text();
    // 4 slices (256 values per row) keep several rows per block and the tree, without a note.
    Slices few(6, 4);
    autosched::Plan fp = solder::testing::plan_for(few.outs, {}, true);
    EXPECT_EQ(solder::testing::row_warps(fp.kernels.at(0)), 0) << fp.to_text();
    EXPECT_FALSE(explained(fp, "warp")) << fp.to_text();

    // CUDA: the 32 reductions (a mean and a variance per slice) each a shuffle tree, in registers.
    autosched::apply_plan(plan, s.outs, make_target("cuda"));
    s.fix_sizes();
    std::string stmt = ::testing::TempDir() + "/warp_rows_slices.stmt";
    Halide::Pipeline(s.outs).compile_to_lowered_stmt(stmt, {*s.x.param}, Halide::Text, make_target("cuda"));
    std::string ptx = solder::testing::read_file(stmt);
    for (int d : {16, 8, 4, 2}) EXPECT_EQ(shuffles_down(ptx, d), 32) << "lanes " << d << " apart";
    EXPECT_EQ(ptx.find(".local"), std::string::npos);
}

TEST(WarpRows, SlicesRunOnOpenCLAgainstADoubleReference) {
    Slices s(3, 16);
    autosched::Plan plan = solder::testing::plan_for(s.outs, {}, true);
    ASSERT_EQ(solder::testing::row_warps(plan.kernels.at(0)), 1) << plan.to_text();
    s.fix_sizes();
    const int64_t n = s.rows * s.slices * 64;
    std::vector<HostBuffer> in{make_host_buffer({"px", DType::F32, {s.rows, s.slices, 64}})};
    std::vector<HostBuffer> out{make_host_buffer({"y", DType::F32, {s.rows, s.slices, 64}})};
    float *px = data_as<float>(in[0]);
    // Each slice its own offset and scale, so a slice mixed up with another shows.
    for (int64_t i = 0; i < n; i++) px[i] = float((i * 7919) % 211) / 50.0f * float(1 + (i / 64) % 5) + float(i / 64);
    ASSERT_EQ(solder::testing::apply_compile_and_call(plan, s.outs, {*s.x.param}, "opencl", in, out), "");
    const float *py = data_as<float>(out[0]);
    for (int64_t row = 0; row < n / 64; row++) {
        const float *r = px + row * 64;
        double mu = 0, var = 0;
        for (int d = 0; d < 64; d++) mu += r[d];
        mu /= 64;
        for (int d = 0; d < 64; d++) var += (r[d] - mu) * (r[d] - mu);
        const double inv = 1.0 / std::sqrt(var / 64 + 1e-5);
        for (int d = 0; d < 64; d++)
            ASSERT_NEAR(py[row * 64 + d], std::tanh((r[d] - mu) * inv), 2e-5) << "slice row " << row << " value " << d;
    }
}
