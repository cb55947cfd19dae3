// Keep-the-better scatters (autosched/scatter_folds.h): a depth buffer's nearest point and a
// forward splat keeping the brightest source, which Halide runs in one thread, are computed on a
// GPU by two atomic min passes. The results must be the serial walk's exactly: ties (the first of
// equal values stays), -0 against +0, values no better than the pixel's initial one, at the
// estimates and at other sizes, on the host (the walk as written) and OpenCL (the two passes),
// against plain C++ walks of the points in order. (Not NaNs: without strict_float Halide lets LLVM
// assume there are none, and a comparison with one goes either way in the serial walk too.)
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <random>

#include "tests/support/user_pipeline.h"

using namespace Halide;
using namespace solder::testing;

namespace scatter_folds {

// Points (x, y, depth in pixel units) splatted into a background depth image: each pixel keeps
// the nearest point strictly in front of what it holds, and that point's index.
struct DepthBuffer {
    ImageParam pts{Float(32), 2, "pts"}, bg{Float(32), 2, "bg"};
    Var x{"x"}, y{"y"};
    Func zb{"zb"}, depth{"depth"}, id{"id"};
    DepthBuffer() {
        RDom r(0, pts.dim(1).extent(), "r");
        zb(x, y) = Tuple(bg(x, y), -1);
        Expr px = clamp(cast<int>(pts(0, r)), 0, bg.dim(0).extent() - 1);
        Expr py = clamp(cast<int>(pts(1, r)), 0, bg.dim(1).extent() - 1);
        Expr nearer = pts(2, r) < zb(px, py)[0];
        zb(px, py) = Tuple(select(nearer, pts(2, r), zb(px, py)[0]), select(nearer, r, zb(px, py)[1]));
        depth(x, y) = zb(x, y)[0];
        id(x, y) = zb(x, y)[1];
        pts.set_estimates({{0, 3}, {0, 100000}});
        bg.set_estimates({{0, 256}, {0, 256}});
        depth.set_estimates({{0, 256}, {0, 256}});
        id.set_estimates({{0, 256}, {0, 256}});
    }
};

// Depths of few levels (ties everywhere), -0 and +0 both among them, and infinity.
float level(std::mt19937 &rng) {
    const float levels[] = {-0.0f, 0.0f, 0.5f, 1.0f, 1.5f, std::numeric_limits<float>::infinity()};
    return levels[rng() % 6];
}

TEST(ScatterFolds, ADepthBufferKeepsTheFirstNearestPointAtAnySize) {
    for (const std::string &target : user_targets()) {
        SCOPED_TRACE("target " + target);
        DepthBuffer p;
        const std::string plan = schedule_with_solder({p.depth, p.id}, target);
        if (target != "host") {
            EXPECT_NE(plan.find("two atomic min passes"), std::string::npos) << plan;
        }
        Pipeline pipe = compiled({p.depth, p.id}, target);
        for (auto [n, w, h] : std::vector<std::array<int, 3>>{{100000, 256, 256}, {5000, 37, 29}, {3, 1, 1}}) {
            SCOPED_TRACE(std::to_string(n) + " points into " + std::to_string(w) + "x" + std::to_string(h));
            std::mt19937 rng(uint32_t(n + w));
            Buffer<float> pts(3, n), bg(w, h);
            for (int k = 0; k < n; k++) {
                pts(0, k) = float(rng() % uint32_t(w + 2)) - 1.0f;  // (some off the edge: clamped)
                pts(1, k) = float(rng() % uint32_t(h + 2)) - 1.0f;
                pts(2, k) = level(rng);
            }
            bg.for_each_value([&](float &v) { v = level(rng); });
            pts.set_host_dirty();
            bg.set_host_dirty();
            p.pts.set(pts);
            p.bg.set(bg);
            Buffer<float> depth(w, h);
            Buffer<int> id(w, h);
            pipe.realize({depth, id}, solder::make_target(target));
            depth.copy_to_host();
            id.copy_to_host();
            Buffer<float> want_depth(w, h);
            Buffer<int> want_id(w, h);
            want_depth.for_each_element([&](int i, int j) { want_depth(i, j) = bg(i, j), want_id(i, j) = -1; });
            for (int k = 0; k < n; k++) {
                const int i = std::clamp(int(pts(0, k)), 0, w - 1), j = std::clamp(int(pts(1, k)), 0, h - 1);
                if (pts(2, k) < want_depth(i, j)) want_depth(i, j) = pts(2, k), want_id(i, j) = k;
            }
            int wrong = 0;
            want_depth.for_each_element([&](int i, int j) {
                // (Values, not bits: Halide compiles without signed zeros, so a -0 and a +0 may come out
                // either way; the index says which point won.)
                const bool same = depth(i, j) == want_depth(i, j) && id(i, j) == want_id(i, j);
                if (!same && wrong++ < 5)
                    ADD_FAILURE() << "at " << i << ", " << j << ": " << depth(i, j) << " from point " << id(i, j)
                                  << ", expected " << want_depth(i, j) << " from point " << want_id(i, j);
            });
            EXPECT_EQ(wrong, 0) << plan;
        }
    }
}

// A forward splat over a 2-D RDom: each source pixel goes where its integer target says, and each
// destination keeps the brightest 8-bit source strictly above zero (the Func's element on the left
// of the comparison: cur < v), with that source's coordinates, the first in the RDom's order
// (x fastest) among equal values.
TEST(ScatterFolds, AForwardSplatKeepsTheFirstBrightestSourceAtAnySize) {
    for (const std::string &target : user_targets()) {
        SCOPED_TRACE("target " + target);
        ImageParam src(UInt(8), 2, "src"), to(Int(32), 3, "to");
        Var x("x"), y("y");
        Func splat("splat");
        RDom r(0, src.dim(0).extent(), 0, src.dim(1).extent(), "r");
        splat(x, y) = Tuple(cast<uint8_t>(0), -1, -1);
        Expr tx = clamp(to(r.x, r.y, 0), 0, src.dim(0).extent() - 1),
             ty = clamp(to(r.x, r.y, 1), 0, src.dim(1).extent() - 1);
        Expr brighter = splat(tx, ty)[0] < src(r.x, r.y);
        splat(tx, ty) = Tuple(select(brighter, src(r.x, r.y), splat(tx, ty)[0]),
                              select(brighter, r.x, splat(tx, ty)[1]), select(brighter, r.y, splat(tx, ty)[2]));
        src.set_estimates({{0, 512}, {0, 512}});
        to.set_estimates({{0, 512}, {0, 512}, {0, 2}});
        splat.set_estimates({{0, 512}, {0, 512}});
        const std::string plan = schedule_with_solder({splat}, target);
        if (target != "host") {
            EXPECT_NE(plan.find("two atomic min passes"), std::string::npos) << plan;
        }
        Pipeline pipe = compiled({splat}, target);
        for (auto [w, h] : std::vector<std::pair<int, int>>{{512, 512}, {37, 29}, {1, 1}}) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            std::mt19937 rng(uint32_t(w * 7 + h));
            Buffer<uint8_t> s(w, h);
            Buffer<int> t(w, h, 2);
            s.for_each_value([&](uint8_t &v) { v = uint8_t(rng() % 4 * 60); });  // (0, 60, 120, 180)
            t.for_each_element([&](int i, int j, int c) { t(i, j, c) = int(rng() % uint32_t((c ? h : w) / 4 + 1)); });
            s.set_host_dirty();
            t.set_host_dirty();
            src.set(s);
            to.set(t);
            Buffer<uint8_t> v(w, h);
            Buffer<int> ox(w, h), oy(w, h);
            pipe.realize({v, ox, oy}, solder::make_target(target));
            v.copy_to_host();
            ox.copy_to_host();
            oy.copy_to_host();
            Buffer<uint8_t> wv(w, h);
            Buffer<int> wx(w, h), wy(w, h);
            wv.for_each_element([&](int i, int j) { wv(i, j) = 0, wx(i, j) = -1, wy(i, j) = -1; });
            for (int j = 0; j < h; j++)
                for (int i = 0; i < w; i++) {
                    const int a = std::clamp(t(i, j, 0), 0, w - 1), b = std::clamp(t(i, j, 1), 0, h - 1);
                    if (wv(a, b) < s(i, j)) wv(a, b) = s(i, j), wx(a, b) = i, wy(a, b) = j;
                }
            int wrong = 0;
            wv.for_each_element([&](int i, int j) {
                if ((v(i, j) != wv(i, j) || ox(i, j) != wx(i, j) || oy(i, j) != wy(i, j)) && wrong++ < 5)
                    ADD_FAILURE() << "at " << i << ", " << j << ": " << int(v(i, j)) << " from " << ox(i, j) << ", "
                                  << oy(i, j) << ", expected " << int(wv(i, j)) << " from " << wx(i, j) << ", "
                                  << wy(i, j);
            });
            EXPECT_EQ(wrong, 0) << plan;
        }
    }
}

// Planned for CUDA, both passes are atomic scatters over the points, not one thread's walk, and
// Halide compiles them without a mutex (which it refuses on a GPU): a 32-bit and a 64-bit min.
TEST(ScatterFolds, BothPassesRunInParallelOnCuda) {
    DepthBuffer p;
    const std::string plan = schedule_with_solder({p.depth, p.id}, "cuda");
    EXPECT_NE(plan.find("two atomic min passes"), std::string::npos) << plan;
    EXPECT_EQ(plan.find("gpu_single_thread"), std::string::npos) << plan;
    lower_for_cuda({p.depth, p.id}, "scatter_folds");
    std::ifstream stmt(::testing::TempDir() + "/scatter_folds.stmt");
    const std::string text((std::istreambuf_iterator<char>(stmt)), std::istreambuf_iterator<char>());
    // (The statement ends with the kernels' PTX: each pass's min a compare-and-swap loop, 32 and
    // 64 bits.)
    EXPECT_NE(text.find("atom.relaxed.global.cas.b32"), std::string::npos);
    EXPECT_NE(text.find("atom.relaxed.global.cas.b64"), std::string::npos);
    EXPECT_EQ(text.find("mutex"), std::string::npos);
}

}  // namespace scatter_folds
