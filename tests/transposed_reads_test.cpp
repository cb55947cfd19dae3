// Pure stages that read a producer transposed (a matrix transpose, a layout change from planar to
// channels-last, a 3-tap filter across the transposed rows): on a GPU the pointwise template lays
// them out in square tiles with the producer's tile in shared memory
// (schedules/pointwise/transposed_tile.h). Planned at one size, run at others (not multiples of
// the tile, one point) on the host and OpenCL against plain C++. A stage that reads the producer in
// place as well takes the tiles without the staging.
#include <gtest/gtest.h>

#include "tests/support/user_pipeline.h"

using namespace Halide;
using namespace solder::testing;

namespace {

const char *kTiled = "read transposed through shared memory";

}  // namespace

TEST(TransposedReads, ATransposeIsTiledAtAnySize) {
    for (auto &target : user_targets()) {
        SCOPED_TRACE(target);
        ImageParam in(Float(32), 2, "tin");
        Var x("x"), y("y");
        Func out("tout");
        out(x, y) = in(y, x) * 2.0f + 1.0f;
        in.set_estimates({{0, 1024}, {0, 2048}});
        out.set_estimates({{0, 2048}, {0, 1024}});
        const std::string plan = schedule_with_solder({out}, target);
        EXPECT_EQ(plan.find(kTiled) != std::string::npos, target != "host") << plan;
        Pipeline p(out);
        p.compile_jit(solder::make_target(target));
        for (auto [w, h] : std::vector<std::pair<int, int>>{{300, 200}, {37, 29}, {517, 263}, {33, 1}, {1, 1}}) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            auto a = random_buffer<float>({h, w}, 71);
            in.set(a);
            Buffer<float> o = realize_on<float>(p, {w, h}, target);
            EXPECT_TRUE(matches(
                o, [&](auto &q) { return a(q[1], q[0]) * 2.0 + 1.0; }, 1e-6))
                << plan;
        }
    }
}

// Rotations by 90 degrees of a 16-bit image with a gain (`in(y, h - 1 - x)` clockwise,
// `in(w - 1 - y, x)` counter-clockwise): a flipped index is a transposed read too, its tile as wide
// as the var's.
TEST(TransposedReads, RotationsAreTiledAtAnySize) {
    for (bool clockwise : {true, false}) {
        for (auto &target : user_targets()) {
            SCOPED_TRACE(target + (clockwise ? " clockwise" : " counter-clockwise"));
            ImageParam in(UInt(16), 2, "rin");
            Param<float> gain("gain");
            gain.set_estimate(1.5f);
            Var x("x"), y("y");
            Func out("rout");
            Expr v = clockwise ? in(y, in.dim(1).extent() - 1 - x) : in(in.dim(0).extent() - 1 - y, x);
            out(x, y) = cast<uint16_t>(min(cast<float>(v) * gain, 65535.0f));
            in.set_estimates({{0, 3840}, {0, 2160}});
            out.set_estimates({{0, 2160}, {0, 3840}});
            const std::string plan = schedule_with_solder({out}, target);
            EXPECT_EQ(plan.find(kTiled) != std::string::npos, target != "host") << plan;
            Pipeline p(out);
            p.compile_jit(solder::make_target(target));
            for (auto [w, h] : std::vector<std::pair<int, int>>{{300, 200}, {37, 29}, {33, 1}, {1, 1}}) {
                SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
                auto a = random_buffer<uint16_t>({h, w}, 72, 0, 65535);
                in.set(a);
                gain.set(1.5f);
                Buffer<uint16_t> o = realize_on<uint16_t>(p, {w, h}, target);
                EXPECT_TRUE(matches(
                    o,
                    [&](auto &q) {
                        const double s = clockwise ? a(q[1], w - 1 - q[0]) : a(h - 1 - q[1], q[0]);
                        return double(uint16_t(std::min(float(s) * 1.5f, 65535.0f)));
                    },
                    0))
                    << plan;
            }
        }
    }
}

// NCHW -> NHWC with a per-channel scale and shift, on 8-bit input: the innermost dim of the output
// (channels) indexes the input's third dim.
TEST(TransposedReads, PlanarToChannelsLastAtAnySize) {
    for (auto &target : user_targets()) {
        SCOPED_TRACE(target);
        ImageParam in(UInt(8), 4, "pin");
        ImageParam scale(Float(32), 1, "pscale"), shift(Float(32), 1, "pshift");
        Var c("c"), x("x"), y("y"), n("n");
        Func out("pout");
        out(c, x, y, n) = cast<float>(in(x, y, c, n)) * scale(c) + shift(c);
        in.set_estimates({{0, 56}, {0, 56}, {0, 128}, {0, 8}});
        scale.set_estimates({{0, 128}});
        shift.set_estimates({{0, 128}});
        out.set_estimates({{0, 128}, {0, 56}, {0, 56}, {0, 8}});
        const std::string plan = schedule_with_solder({out}, target);
        EXPECT_EQ(plan.find(kTiled) != std::string::npos, target != "host") << plan;
        Pipeline p(out);
        p.compile_jit(solder::make_target(target));
        for (auto [C, W] : std::vector<std::pair<int, int>>{{70, 45}, {3, 5}, {1, 1}}) {
            SCOPED_TRACE(std::to_string(C) + " channels, " + std::to_string(W) + " wide");
            const int H = 3, N = 2;
            auto a = random_buffer<uint8_t>({W, H, C, N}, 72, 0, 255);
            auto s = random_buffer<float>({C}, 73), b = random_buffer<float>({C}, 74);
            in.set(a);
            scale.set(s);
            shift.set(b);
            Buffer<float> o = realize_on<float>(p, {C, W, H, N}, target);
            EXPECT_TRUE(matches(
                o, [&](auto &q) { return double(a(q[1], q[2], q[0], q[3])) * s(q[0]) + b(q[0]); }, 1e-5))
                << plan;
        }
    }
}

// A 3-tap filter across the transposed rows: the tile's copy spans two more rows of the input. The
// input's buffer starts at -1 (the caller provides the border).
TEST(TransposedReads, ATapAcrossTransposedRowsReadsTheTileAndItsBorder) {
    for (auto &target : user_targets()) {
        SCOPED_TRACE(target);
        ImageParam in(Float(32), 2, "sin");
        Var x("x"), y("y");
        Func out("sout");
        out(x, y) = in(y - 1, x) + 2.0f * in(y, x) + in(y + 1, x);
        in.set_estimates({{-1, 1026}, {0, 1024}});
        out.set_estimates({{0, 1024}, {0, 1024}});
        const std::string plan = schedule_with_solder({out}, target);
        EXPECT_EQ(plan.find(kTiled) != std::string::npos, target != "host") << plan;
        Pipeline p(out);
        p.compile_jit(solder::make_target(target));
        for (auto [w, h] : std::vector<std::pair<int, int>>{{100, 70}, {37, 29}, {1, 1}}) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            auto a = random_buffer<float>({h + 2, w}, 75);
            a.set_min(-1, 0);
            in.set(a);
            Buffer<float> o = realize_on<float>(p, {w, h}, target);
            EXPECT_TRUE(matches(
                o, [&](auto &q) { return a(q[1] - 1, q[0]) + 2.0 * a(q[1], q[0]) + a(q[1] + 1, q[0]); }, 1e-5))
                << plan;
        }
    }
}

// A stage that reads its producer both transposed and in place (a matrix's symmetric part): the
// square tiles without the staging (one copy would be the box around both regions), so that the
// transposed reads of a block's rows share their sectors; planned at one size, run at others.
TEST(TransposedReads, InPlaceAndTransposedReadsTakeTheTilesUnstaged) {
    for (auto &target : user_targets()) {
        SCOPED_TRACE(target);
        ImageParam in(Float(32), 2, "min");
        Var x("x"), y("y");
        Func both("both");
        both(x, y) = (in(y, x) + in(x, y)) * 0.5f;
        in.set_estimates({{0, 1024}, {0, 1024}});
        both.set_estimates({{0, 1024}, {0, 1024}});
        const std::string plan = schedule_with_solder({both}, target);
        EXPECT_EQ(plan.find(kTiled), std::string::npos) << plan;
        EXPECT_EQ(plan.find("min read in place and transposed") != std::string::npos, target != "host") << plan;
        EXPECT_EQ(plan.find("min_in"), std::string::npos) << plan;  // no copy of the input
        Pipeline p(both);
        p.compile_jit(solder::make_target(target));
        for (int n : {300, 37, 1}) {
            SCOPED_TRACE(n);
            auto a = random_buffer<float>({n, n}, 75);
            in.set(a);
            Buffer<float> o = realize_on<float>(p, {n, n}, target);
            EXPECT_TRUE(matches(
                o, [&](auto &q) { return (double(a(q[1], q[0])) + a(q[0], q[1])) * 0.5; }, 1e-6))
                << plan;
        }
    }
}

// Not tiled: a transpose of a matrix narrower than a tile.
TEST(TransposedReads, NarrowReadsKeepTheVectorLayout) {
    ImageParam thin(Float(32), 2, "thin");
    Var x("x"), y("y");
    Func narrow("narrow");
    narrow(x, y) = thin(y, x);
    thin.set_estimates({{0, 4096}, {0, 16}});
    narrow.set_estimates({{0, 16}, {0, 4096}});
    const std::string plan = schedule_with_solder({narrow}, "opencl");
    EXPECT_EQ(plan.find(kTiled), std::string::npos) << plan;
    EXPECT_EQ(plan.find("read in place and transposed"), std::string::npos) << plan;
}
