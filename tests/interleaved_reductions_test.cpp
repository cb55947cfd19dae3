// A reduction root laid out as an interleaved image (its channels innermost in memory, 2 to 4 of
// them at the estimates): each thread computes its pixel's channels, the threads in tiles over the
// columns and rows. One point per thread along the channels left 253 of every block's 256 threads
// idle. Planned at one size, run at others (and other channel counts) on the host and OpenCL
// against plain C++.
#include <algorithm>
#include <regex>

#include <gtest/gtest.h>

#include "tests/support/plan_and_run.h"
#include "tests/support/user_pipeline.h"

using namespace Halide;
using namespace solder;
using namespace solder::testing;

namespace {

// A 9-tap box filter of an interleaved 8-bit RGB image written as Halide users write it: a row
// sum (a reduction over c, x, y, stored for the column pass) and a column sum read one to one.
struct InterleavedBox {
    ImageParam in{UInt(8), 3, "ilr_in"};
    Func rows{"ilr_rows"}, out{"ilr_out"};
    InterleavedBox() {
        Var c("c"), x("x"), y("y");
        Expr w = in.dim(1).extent(), h = in.dim(2).extent();
        Func cl("ilr_cl");
        cl(c, x, y) = in(c, clamp(x, 0, w - 1), clamp(y, 0, h - 1));
        RDom k(-4, 9, "k");
        rows(c, x, y) = sum(cast<uint16_t>(cl(c, x + k, y)));
        out(c, x, y) = cast<uint8_t>((sum(cast<uint32_t>(rows(c, x, y + k))) + 40) / 81);
        // (The channels innermost in memory; their count is the buffer's.)
        in.dim(0).set_stride(1);
        out.output_buffer().dim(0).set_stride(1);
        in.set_estimates({{0, 3}, {0, 3840}, {0, 2160}});
        out.set_estimates({{0, 3}, {0, 3840}, {0, 2160}});
    }
};

// A list of 3-vectors (a point cloud's x, y, z innermost) smoothed along the list over 7
// neighbours, then differenced with the neighbour before: the sum is stored for the difference.
struct PointCloudSmooth {
    ImageParam in{Float(32), 2, "ilr_pc"};
    Func out{"ilr_pc_out"};
    PointCloudSmooth() {
        Var c("c"), i("i");
        Func cl = BoundaryConditions::repeat_edge(in);
        RDom k(-3, 7, "k");
        Func smooth("ilr_smooth");
        smooth(c, i) = sum(cl(c, i + k)) / 7.0f;
        out(c, i) = smooth(c, i) * 2.0f - smooth(c, max(i - 1, 0));
        in.set_estimates({{0, 3}, {0, 1 << 22}});
        out.set_estimates({{0, 3}, {0, 1 << 22}});
    }
};

// The largest value of each channel along each row of an interleaved 8-bit RGB image: a reduction
// of 3 x 2160 results at the estimates, each over a row of 3840 pixels read a channel apart.
struct InterleavedRowMax {
    ImageParam in{UInt(8), 3, "ilr_rm_in"};
    Func out{"ilr_rm_out"};
    InterleavedRowMax() {
        Var c("c"), y("y");
        RDom r(0, in.dim(1).extent(), "r");
        out(c, y) = maximum(in(c, r, y));
        in.dim(0).set_stride(1);
        in.set_estimates({{0, 3}, {0, 3840}, {0, 2160}});
        out.set_estimates({{0, 3}, {0, 2160}});
    }
};

// The mean of each channel down each column of an interleaved 8-bit RGB image: 3 x 3840 results at
// the estimates, each over 2160 rows.
struct InterleavedColumnMean {
    ImageParam in{UInt(8), 3, "ilr_cm_in"};
    Func out{"ilr_cm_out"};
    InterleavedColumnMean() {
        Var c("c"), x("x");
        Expr h = in.dim(2).extent();
        RDom r(0, h, "r");
        out(c, x) = sum(cast<float>(in(c, x, r))) / cast<float>(h);
        in.dim(0).set_stride(1);
        in.set_estimates({{0, 3}, {0, 3840}, {0, 2160}});
        out.set_estimates({{0, 3}, {0, 3840}});
    }
};

// An interleaved 8-bit image of `w` x `h` pixels (its `channels` innermost in memory), indexed
// (c, x, y) as the pipelines declare their buffers; random values from `seed` where `seed` >= 0.
Buffer<uint8_t> interleaved_image(int w, int h, int channels, int64_t seed = -1) {
    Buffer<uint8_t> a = Buffer<uint8_t>::make_interleaved(w, h, channels);
    a.transpose(std::vector<int>{1, 2, 0});
    if (seed >= 0) {
        std::mt19937 rng{uint32_t(seed)};
        a.for_each_value([&](uint8_t &v) { v = uint8_t(rng()); });
        a.set_host_dirty();
    }
    return a;
}

// The plan's line for the kernel that stores `func`.
std::string kernel_line(const std::string &plan, const std::string &func) {
    std::smatch m;
    if (std::regex_search(plan, m, std::regex("\\n  k\\d+_[^\\n]*\\] writes " + func + "[^\\n]*"))) return m.str();
    return "";
}

}  // namespace

// The row sum's kernel takes the pixels' channels in each thread, its threads over columns and rows.
TEST(InterleavedReductions, ARowSumOfAnInterleavedImageTakesItsChannelsInEachThread) {
    InterleavedBox b;
    const std::string plan = schedule_with_solder({b.out}, "cuda");
    std::string line;
    for (const std::string &f : {std::string("sum"), b.rows.name()})
        if (line.empty()) line = kernel_line(plan, f);
    ASSERT_FALSE(line.empty()) << plan;
    EXPECT_NE(line.find("dim 0's points in each thread, the threads over dims 1 and 2"), std::string::npos) << plan;
    // Halide accepts the CUDA schedule.
    EXPECT_NO_THROW(lower_for_cuda({b.out}, "interleaved_reductions")) << plan;
}

TEST(InterleavedReductions, ARowSumOfAnInterleavedImageRunsOnOpenCL) {
    for (const std::string &target : user_targets()) {
        InterleavedBox b;
        const std::string plan = schedule_with_solder({b.out}, target);
        Pipeline p = compiled({b.out}, target);
        for (int channels : {3, 4, 1})
            for (auto [w, h] : std::vector<std::pair<int, int>>{{300, 200}, {37, 29}, {1, 1}}) {
                SCOPED_TRACE(target + " " + std::to_string(channels) + "x" + std::to_string(w) + "x" +
                             std::to_string(h));
                Buffer<uint8_t> a = interleaved_image(w, h, channels, w * 31 + channels);
                b.in.set(a);
                Buffer<uint8_t> o = interleaved_image(w, h, channels);
                const std::string error = failure_of([&] { p.realize(o, make_target(target)); });
                ASSERT_EQ(error, "") << plan;
                o.copy_to_host();
                EXPECT_TRUE(matches(
                    o,
                    [&](auto &q) {
                        uint32_t s = 0;
                        for (int j = -4; j <= 4; j++)
                            for (int i = -4; i <= 4; i++)
                                s += a(q[0], std::clamp(q[1] + i, 0, w - 1), std::clamp(q[2] + j, 0, h - 1));
                        return int((s + 40) / 81);
                    },
                    0))
                    << plan;
            }
    }
}

// Two dims: the threads along the list, each computing its point's 3 coordinates.
TEST(InterleavedReductions, APointCloudsSumTakesItsCoordinatesInEachThread) {
    PointCloudSmooth b;
    const std::string plan = schedule_with_solder({b.out}, "cuda");
    const std::string line = kernel_line(plan, "sum");
    ASSERT_FALSE(line.empty()) << plan;
    EXPECT_NE(line.find("dim 0's points in each thread"), std::string::npos) << plan;
    EXPECT_NO_THROW(lower_for_cuda({b.out}, "interleaved_point_cloud")) << plan;
}

TEST(InterleavedReductions, APointCloudsSumRunsOnOpenCL) {
    for (const std::string &target : user_targets()) {
        PointCloudSmooth b;
        const std::string plan = schedule_with_solder({b.out}, target);
        Pipeline p = compiled({b.out}, target);
        for (int coords : {3, 2, 4})
            for (int n : {1000, 37, 1}) {
                SCOPED_TRACE(target + " " + std::to_string(coords) + "x" + std::to_string(n));
                Buffer<float> a = random_buffer<float>({coords, n}, uint32_t(n + coords), -1, 1);
                b.in.set(a);
                Buffer<float> o(coords, n);
                const std::string error = failure_of([&] { p.realize(o, make_target(target)); });
                ASSERT_EQ(error, "") << plan;
                o.copy_to_host();
                auto smooth = [&](int c, int i) {
                    double s = 0;
                    for (int j = -3; j <= 3; j++) s += a(c, std::clamp(i + j, 0, n - 1));
                    return s / 7.0;
                };
                EXPECT_TRUE(matches(
                    o, [&](auto &q) { return smooth(q[0], q[1]) * 2.0 - smooth(q[0], std::max(q[1] - 1, 0)); }, 1e-5))
                    << plan;
            }
    }
}

// A reduction along the pixels of each row of an interleaved image: a block per result, its lanes
// over neighbouring pixels, not a thread per row walking all of them.
TEST(InterleavedReductions, EachRowsMaximumOfAnInterleavedImageTakesABlockPerResult) {
    InterleavedRowMax b;
    const std::string plan = schedule_with_solder({b.out}, "cuda");
    const std::string line = kernel_line(plan, "maximum");
    ASSERT_FALSE(line.empty()) << plan;
    EXPECT_NE(line.find("[block_reduction]"), std::string::npos) << plan;
    EXPECT_NO_THROW(lower_for_cuda({b.out}, "interleaved_row_max")) << plan;
}

TEST(InterleavedReductions, EachRowsMaximumOfAnInterleavedImageRunsOnOpenCL) {
    for (const std::string &target : user_targets()) {
        InterleavedRowMax b;
        const std::string plan = schedule_with_solder({b.out}, target);
        Pipeline p = compiled({b.out}, target);
        for (int channels : {3, 4, 1})
            for (auto [w, h] : std::vector<std::pair<int, int>>{{1000, 40}, {37, 29}, {1, 1}}) {
                SCOPED_TRACE(target + " " + std::to_string(channels) + "x" + std::to_string(w) + "x" +
                             std::to_string(h));
                Buffer<uint8_t> a = interleaved_image(w, h, channels, w * 17 + channels);
                b.in.set(a);
                Buffer<uint8_t> o(channels, h);
                const std::string error = failure_of([&] { p.realize(o, make_target(target)); });
                ASSERT_EQ(error, "") << plan;
                o.copy_to_host();
                EXPECT_TRUE(matches(
                    o,
                    [&](auto &q) {
                        int m = 0;
                        for (int i = 0; i < w; i++) m = std::max<int>(m, a(q[0], i, q[1]));
                        return m;
                    },
                    0))
                    << plan;
            }
    }
}

// Few results down long columns: split-K, its partials' threads along the channels and pixels
// together (contiguous in memory), not a thread per column walking every row.
TEST(InterleavedReductions, EachColumnsMeanOfAnInterleavedImageIsSplitAlongItsRows) {
    InterleavedColumnMean b;
    const std::string plan = schedule_with_solder({b.out}, "cuda");
    // (The inline sum's name is Halide's, `sum` or `sum$N` as other Funcs made before took it.)
    EXPECT_TRUE(std::regex_search(plan, std::regex("split-K: sum(\\$\\d+)? summed in"))) << plan;
    EXPECT_NE(plan.find(".fuse(c, x, "), std::string::npos) << plan;
    EXPECT_NO_THROW(lower_for_cuda({b.out}, "interleaved_column_mean")) << plan;
}

TEST(InterleavedReductions, EachColumnsMeanOfAnInterleavedImageRunsOnOpenCL) {
    for (const std::string &target : user_targets()) {
        InterleavedColumnMean b;
        const std::string plan = schedule_with_solder({b.out}, target);
        Pipeline p = compiled({b.out}, target);
        for (int channels : {3, 4, 1})
            for (auto [w, h] : std::vector<std::pair<int, int>>{{300, 700}, {37, 29}, {1, 1}, {5, 2000}}) {
                SCOPED_TRACE(target + " " + std::to_string(channels) + "x" + std::to_string(w) + "x" +
                             std::to_string(h));
                Buffer<uint8_t> a = interleaved_image(w, h, channels, h * 13 + channels);
                b.in.set(a);
                Buffer<float> o(channels, w);
                const std::string error = failure_of([&] { p.realize(o, make_target(target)); });
                ASSERT_EQ(error, "") << plan;
                o.copy_to_host();
                EXPECT_TRUE(matches(
                    o,
                    [&](auto &q) {
                        double s = 0;
                        for (int j = 0; j < h; j++) s += a(q[0], q[1], j);
                        return s / h;
                    },
                    1e-4))
                    << plan;
            }
    }
}
