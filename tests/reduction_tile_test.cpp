// The reduction tile template (schedules/reduction_tile): a 2-D output whose kernel reduces over
// a stencil along one RVar (block-matching stereo: the arg-min over disparities of window sums of
// differences) steps through the RVar per tile, and never stores the cost volume. Planned at one
// size, run at others (narrower than a tile, not a multiple of one, one point) and with other
// numbers of steps, on the host and on OpenCL, against a plain C++ reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <tuple>

#include "schedules/reduction_tile/reduction_tile.h"
#include "tests/support/user_pipeline.h"

using namespace Halide;
using namespace solder::testing;
using solder::autosched::FuncGraph;
using solder::autosched::reduction_tile_shape;

namespace {

// Disparity by block matching, written as Halide users write it: 3 x 3 windows of absolute
// differences of two 8-bit images, the arg-min over a scalar parameter's number of disparities
// (the first of equal costs), as the least of cost * 64 + d. (Halide's `argmin` is an update Halide
// cannot prove associative, which takes the generic template.)
struct Stereo {
    ImageParam left{UInt(8), 2, "left"}, right{UInt(8), 2, "right"};
    Param<int> steps{"steps"};
    Func out{"disparity"};
    Stereo() {
        Var x("x"), y("y"), d("d");
        Func l = BoundaryConditions::repeat_edge(left), r = BoundaryConditions::mirror_image(right);
        Func diff("diff"), window("window");
        diff(x, y, d) = abs(cast<int>(l(x, y)) - cast<int>(r(x - d, y)));
        window(x, y, d) = diff(x - 1, y - 1, d) + diff(x, y - 1, d) + diff(x + 1, y - 1, d) + diff(x - 1, y, d) +
                          diff(x, y, d) + diff(x + 1, y, d) + diff(x - 1, y + 1, d) + diff(x, y + 1, d) +
                          diff(x + 1, y + 1, d);
        RDom k(0, steps, "k");
        out(x, y) = minimum(window(x, y, k) * 64 + k) % 64;
        left.set_estimates({{0, 512}, {0, 256}});
        right.set_estimates({{0, 512}, {0, 256}});
        steps.set_estimate(16);
        out.set_estimates({{0, 512}, {0, 256}});
    }
};

int reference_disparity(const Buffer<uint8_t> &L, const Buffer<uint8_t> &R, int steps, int x, int y) {
    const int w = L.width(), h = L.height();
    auto l = [&](int i, int j) { return int(L(std::clamp(i, 0, w - 1), std::clamp(j, 0, h - 1))); };
    auto mirror = [](int i, int n) {  // BoundaryConditions::mirror_image
        const int period = 2 * n;
        int m = ((i % period) + period) % period;
        return m < n ? m : period - 1 - m;
    };
    auto r = [&](int i, int j) { return int(R(mirror(i, w), mirror(j, h))); };
    int best = 0, best_cost = 0;
    for (int d = 0; d < steps; d++) {
        int cost = 0;
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) cost += std::abs(l(x + dx, y + dy) - r(x + dx - d, y + dy));
        if (d == 0 || cost < best_cost) best = d, best_cost = cost;
    }
    return best;
}

}  // namespace

TEST(ReductionTiles, StereoArgMinAtAnySizeOnHostAndOpenCL) {
    for (const std::string &target : user_targets()) {
        SCOPED_TRACE("target " + target);
        Stereo s;
        const std::string plan = schedule_with_solder({s.out}, target);
        if (target != "host") {
            EXPECT_NE(plan.find("reduction_tile"), std::string::npos) << plan;
            EXPECT_EQ(plan.find("window int32"), std::string::npos) << "the cost volume is stored\n" << plan;
            // 8-bit images and 32-bit sums per tile: each allocation padded to 8-byte words
            // (Halide issue 6803: a Func after an odd-sized one overlapped it).
            EXPECT_NE(plan.find(".align_storage("), std::string::npos) << plan;
        }
        Pipeline p(s.out);
        p.compile_jit(solder::make_target(target));
        for (auto [w, h, steps] : std::vector<std::tuple<int, int, int>>{
                 {512, 256, 16}, {37, 29, 16}, {517, 263, 5}, {1, 1, 3}, {33, 40, 1}, {100, 7, 60}}) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + ", " + std::to_string(steps) + " steps");
            Buffer<uint8_t> L = random_buffer<uint8_t>({w, h}, 5, 0, 255),
                            R = random_buffer<uint8_t>({w, h}, 6, 0, 255);
            s.left.set(L);
            s.right.set(R);
            s.steps.set(steps);
            Buffer<int> o = p.realize({w, h}, solder::make_target(target));
            o.copy_to_host();
            EXPECT_TRUE(matches(
                o, [&](auto &q) { return reference_disparity(L, R, steps, q[0], q[1]); }, 0))
                << plan;
        }
    }
}

// The same window minimum as a pipeline output: a reduction root whose update reads stencils of a
// boundary condition. The stencil tile template tiles a root's pure stage only, and its producers
// computed per tile there were missing from the update's loops: Halide refused to compile it
// (found by the random user pipelines' window-minimum stage). It now leaves such roots alone.
TEST(ReductionTiles, AReductionRootOverStencilsCompilesAtAnySize) {
    for (const std::string &target : user_targets()) {
        SCOPED_TRACE("target " + target);
        ImageParam in(Float(32), 2, "in");
        Param<int> shifts("shifts");
        Var x("x"), y("y"), k("k");
        Func c = BoundaryConditions::mirror_image(in), diff("diff"), window("window"), least("least");
        diff(x, y, k) = abs(c(x, y) - c(x + k, y + 1));
        window(x, y, k) = diff(x - 1, y, k) + diff(x, y, k) + diff(x + 1, y - 1, k);
        RDom r(0, shifts, "r");
        least(x, y) = window(x, y, 0);
        least(x, y) = min(least(x, y), window(x, y, r));
        in.set_estimates({{0, 256}, {0, 192}});
        shifts.set_estimate(3);
        least.set_estimates({{0, 256}, {0, 192}});
        const std::string plan = schedule_with_solder({least}, target);
        EXPECT_EQ(plan.find("k0_" + least.name() + " [stencil_tile"), std::string::npos) << plan;
        Pipeline p(least);
        p.compile_jit(solder::make_target(target));
        for (auto [w, h, steps] : std::vector<std::tuple<int, int, int>>{{256, 192, 3}, {37, 29, 4}, {1, 1, 2}}) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            Buffer<float> img = random_buffer<float>({w, h}, 9);
            in.set(img);
            shifts.set(steps);
            Buffer<float> o = p.realize({w, h}, solder::make_target(target));
            o.copy_to_host();
            auto mirror = [](int i, int n) {
                const int period = 2 * n;
                int m = ((i % period) + period) % period;
                return m < n ? m : period - 1 - m;
            };
            auto at = [&](int i, int j) { return double(img(mirror(i, w), mirror(j, h))); };
            auto d = [&](int i, int j, int s) { return std::abs(at(i, j) - at(i + s, j + 1)); };
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    const int i = q[0], j = q[1];
                    double best = 1e30;
                    for (int s = 0; s < steps; s++)
                        best = std::min(best, d(i - 1, j, s) + d(i, j, s) + d(i + 1, j - 1, s));
                    return std::min(best, d(i - 1, j, 0) + d(i, j, 0) + d(i + 1, j - 1, 0));
                },
                1e-5))
                << plan;
        }
    }
}

// A Func of the steps that the root also reads (here the differences at the first shift) is not
// staged inside the RVar loop, where the root's own reads could not see it.
TEST(ReductionTiles, AStepFuncTheRootAlsoReadsIsNotStagedPerStep) {
    for (const std::string &target : user_targets()) {
        SCOPED_TRACE("target " + target);
        ImageParam in(Float(32), 2, "in");
        Param<int> shifts("shifts");
        Var x("x"), y("y"), k("k");
        Func c = BoundaryConditions::repeat_edge(in), diff("diff"), window("window"), out("out");
        diff(x, y, k) = abs(c(x, y) - c(x + k, y));
        window(x, y, k) = diff(x, y - 1, k) + diff(x, y, k) + diff(x, y + 1, k);
        RDom r(0, shifts, "r");
        out(x, y) = minimum(window(x, y, r)) + diff(x - 1, y, 0) + diff(x + 1, y, 0);
        in.set_estimates({{0, 512}, {0, 256}});
        shifts.set_estimate(16);
        out.set_estimates({{0, 512}, {0, 256}});
        const std::string plan = schedule_with_solder({out}, target);
        EXPECT_EQ(plan.find("with diff per tile at each step"), std::string::npos) << plan;
        if (target != "host") {
            // The template's own choice, with every Func fused into the output's kernel: diff is
            // no step's Func to stage. (It was: computed inside the RVar loop, outside which the
            // root reads it too, and Halide refused to compile the kernel.)
            FuncGraph g = FuncGraph::build({out});
            const int root = g.find(out.name());
            std::vector<int> members;
            for (size_t i = 0; i < g.nodes.size(); i++)
                if (!g.nodes[i].is_input && int(i) != root) members.push_back(int(i));
            EXPECT_NE(reduction_tile_shape(g, root, members).per_step, g.find(diff.name()));
        }
        Pipeline p(out);
        p.compile_jit(solder::make_target(target));
        for (auto [w, h, steps] : std::vector<std::tuple<int, int, int>>{{512, 256, 16}, {37, 29, 3}, {1, 1, 2}}) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            Buffer<float> img = random_buffer<float>({w, h}, 4);
            in.set(img);
            shifts.set(steps);
            Buffer<float> o = p.realize({w, h}, solder::make_target(target));
            o.copy_to_host();
            auto at = [&](int i, int j) { return double(img(std::clamp(i, 0, w - 1), std::clamp(j, 0, h - 1))); };
            auto d = [&](int i, int j, int s) { return std::abs(at(i, j) - at(i + s, j)); };
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    const int i = q[0], j = q[1];
                    double best = 1e30;
                    for (int s = 0; s < steps; s++) best = std::min(best, d(i, j - 1, s) + d(i, j, s) + d(i, j + 1, s));
                    return best + d(i - 1, j, 0) + d(i + 1, j, 0);
                },
                1e-5))
                << plan;
        }
    }
}
