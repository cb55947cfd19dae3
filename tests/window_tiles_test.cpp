// Reductions over windows fused into stencil tiles (`window_tiles`): a separable blur written with
// inline sums, as Halide users write it (`bx(x, y) = sum(in(x + k, y))`, `out(x, y) = sum(bx(x, y +
// k))`), computes its row pass per tile in shared memory and its column pass in each thread, one
// kernel, where it took two (the row pass stored). Planned at one size, run at others on the host
// and OpenCL against plain C++.
#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "autosched/model/func_graph.h"
#include "schedules/registry.h"
#include "tests/support/plan_and_run.h"
#include "tests/support/plan_fields.h"
#include "tests/support/user_pipeline.h"

using namespace Halide;
using namespace solder;
using namespace solder::testing;
using autosched::Placement;

namespace {

const std::vector<std::pair<int, int>> kSizes{{300, 200}, {37, 29}, {517, 3}, {1, 1}};

Placement placement_of(const autosched::Plan &p, const std::string &f) {
    for (auto &fp : p.funcs)
        if (autosched::name_as_written(fp.func) == f) return fp.placement;
    ADD_FAILURE() << f << " is not in the plan\n" << p.to_text();
    return Placement::Root;
}

// A (2r + 1)^2 box of a clamped image in two passes of inline sums (`explicit_updates`: each pass a
// Func with an update of its own, `bx(x, y) += ...`), scaled by `scale`.
struct SeparableBox {
    ImageParam in{Float(32), 2, "wt_in"};
    Func bx{"wt_bx"}, out{"wt_out"};
    SeparableBox(int r, bool explicit_updates) {
        Var x("x"), y("y");
        Func cl = BoundaryConditions::repeat_edge(in);
        RDom k(-r, 2 * r + 1, "k");
        const float scale = 1.0f / float((2 * r + 1) * (2 * r + 1));
        if (explicit_updates) {
            Func cs("wt_cs");
            bx(x, y) = 0.0f;
            bx(x, y) += cl(x + k, y);
            cs(x, y) = 0.0f;
            cs(x, y) += bx(x, y + k);
            out(x, y) = cs(x, y) * scale;
        } else {
            bx(x, y) = sum(cl(x + k, y));
            out(x, y) = sum(bx(x, y + k)) * scale;
        }
        in.set_estimates({{0, 2048}, {0, 2048}});
        out.set_estimates({{0, 2048}, {0, 2048}});
    }
};

// Runs `out` (scheduled for `target`) at each of kSizes against the box of radius `r`.
void expect_box(SeparableBox &b, int r, const std::string &target) {
    Pipeline p(b.out);
    p.compile_jit(make_target(target));
    for (auto [w, h] : kSizes) {
        SCOPED_TRACE(target + " " + std::to_string(w) + "x" + std::to_string(h));
        Buffer<float> a(w, h);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) a(x, y) = float((x * 7 + y * 13) % 17) - 8.0f;
        b.in.set(a);
        Buffer<float> o = realize_on<float>(p, {w, h}, target);
        int bad = 0;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                double s = 0;
                for (int j = -r; j <= r; j++)
                    for (int i = -r; i <= r; i++) s += a(std::clamp(x + i, 0, w - 1), std::clamp(y + j, 0, h - 1));
                s /= double((2 * r + 1) * (2 * r + 1));
                bad += std::abs(s - double(o(x, y))) > 1e-4;
            }
        EXPECT_EQ(bad, 0);
    }
}

}  // namespace

// The graph marks a reduction's read of a window around its point (FuncEdge::window), not a
// contraction's read of a row, nor a reduction's read at its own point.
TEST(WindowTiles, TheGraphMarksReadsOfAWindow) {
    SeparableBox b(2, false);
    ImageParam m{Float(32), 2, "wt_m"};
    Var x("x"), y("y");
    RDom k(0, 64, "kk");
    Func mm("wt_mm"), both("wt_both");
    mm(x, y) = sum(m(k, y) * b.out(x, k));
    both(x, y) = mm(x, y) + b.out(x, y);
    m.set_estimates({{0, 64}, {0, 2048}});
    both.set_estimates({{0, 2048}, {0, 2048}});
    autosched::FuncGraph g = autosched::FuncGraph::build({both});
    EXPECT_TRUE(g.read_through_window(g.find(b.bx.name())));
    EXPECT_FALSE(g.read_through_window(g.find(b.out.name())));  // read a row per point by mm
    EXPECT_FALSE(g.read_through_window(g.find("wt_m")));
    EXPECT_FALSE(g.read_through_window(g.find(mm.name())));  // read at its own point
}

// One kernel: the row pass computed per tile, both sums in it; right at every size.
TEST(WindowTiles, ASeparableBlurOfInlineSumsIsOneKernelAtAnySize) {
    for (bool explicit_updates : {false, true}) {
        SCOPED_TRACE(explicit_updates ? "explicit updates" : "inline sums");
        SeparableBox b(2, explicit_updates);
        autosched::Plan plan = plan_for({b.out}, {}, true);
        ASSERT_EQ(plan.kernels.size(), 1u) << plan.to_text();
        EXPECT_EQ(plan.kernels[0].template_name(), "stencil_tile") << plan.to_text();
        EXPECT_EQ(placement_of(plan, "wt_bx"), Placement::ComputeAtBlock) << plan.to_text();
        // Off, no stencil tiles.
        autosched::PlannerOptions off;
        off.window_tiles = false;
        for (auto &k : plan_for({b.out}, off, true).kernels) EXPECT_NE(k.template_name(), "stencil_tile");
    }
}

TEST(WindowTiles, ASeparableBlurOfInlineSumsRunsOnOpenCL) {
    for (bool explicit_updates : {false, true}) {
        SCOPED_TRACE(explicit_updates ? "explicit updates" : "inline sums");
        for (const std::string &target : user_targets()) {
            SeparableBox b(2, explicit_updates);
            const std::string plan = schedule_with_solder({b.out}, target);
            if (target != "host") {
                EXPECT_NE(plan.find("[stencil_tile"), std::string::npos) << plan;
            }
            expect_box(b, 2, target);
        }
    }
}

// A window over an input alone has nothing to compute per tile: the register tiles keep it.
TEST(WindowTiles, AWindowOverAnInputAloneKeepsTheRegisterTiles) {
    ImageParam in{Float(32), 2, "wt_in"};
    Var x("x"), y("y");
    RDom k(-2, 5, -2, 5, "k");
    Func cl = BoundaryConditions::repeat_edge(in), out("wt_box");
    out(x, y) = sum(cl(x + k.x, y + k.y)) / 25.0f;
    in.set_estimates({{0, 2048}, {0, 2048}});
    out.set_estimates({{0, 2048}, {0, 2048}});
    autosched::Plan plan = plan_for({out}, {}, true);
    ASSERT_EQ(plan.kernels.size(), 1u) << plan.to_text();
    EXPECT_EQ(plan.kernels[0].template_name(), "pointwise") << plan.to_text();
}

// A Gaussian whose radius comes from a float parameter, ceil(3 sigma), with its weights a Func of
// sigma normalized by their 0-d sum. Unbounded, sigma may be larger when the pipeline runs, and so
// would the row pass's region per tile: it is stored. Declared at most 4 (a radius of 12), the
// tile fits there, and the kernel fuses it; the weights' sum, read at every pixel, is stored
// either way (computed at each point it would repeat its 25 steps there), and so are the weights,
// whose exp would be evaluated at every step of both passes.
TEST(WindowTiles, AGaussianSizedByAFloatParameterFusesWhereItsMaximumFits) {
    for (bool bounded : {false, true}) {
        SCOPED_TRACE(bounded ? "sigma at most 4" : "sigma unbounded");
        ImageParam in{Float(32), 2, "wt_in"};
        Param<float> sigma("wt_sigma");
        sigma.set_estimate(2.0f);
        if (bounded) sigma.set_range(0.5f, 4.0f);
        Var x("x"), y("y");
        Expr radius = cast<int>(ceil(3.0f * sigma));
        Func cl = BoundaryConditions::repeat_edge(in);
        Func w("wt_w"), wsum("wt_wsum"), bx("wt_gx"), out("wt_gauss");
        w(x) = exp(-cast<float>(x * x) / (2.0f * sigma * sigma));
        RDom k(-radius, 2 * radius + 1, "k");
        wsum() = sum(w(k));
        bx(x, y) = sum(cl(x + k, y) * w(k)) / wsum();
        out(x, y) = sum(bx(x, y + k) * w(k)) / wsum();
        in.set_estimates({{0, 2048}, {0, 2048}});
        out.set_estimates({{0, 2048}, {0, 2048}});
        autosched::Plan plan = plan_for({out}, {}, true);
        EXPECT_EQ(placement_of(plan, "wt_gx"), bounded ? Placement::ComputeAtBlock : Placement::Inline)
            << plan.to_text();
        EXPECT_EQ(placement_of(plan, "wt_w"), Placement::Root) << plan.to_text();
        const autosched::KernelPlan *k_out = kernel_rooted_at(plan, "wt_gauss");
        ASSERT_NE(k_out, nullptr) << plan.to_text();
        EXPECT_EQ(k_out->template_name(), bounded ? "stencil_tile" : "pointwise") << plan.to_text();
        autosched::FuncGraph g = autosched::FuncGraph::build({out});
        for (auto &f : k_out->funcs) {
            const autosched::FuncNode &n = g.nodes[size_t(g.find(f))];
            EXPECT_FALSE(n.is_reduction() && n.dims.empty()) << f << " is in " << k_out->name << "\n" << plan.to_text();
        }
    }
}

// Halide shares the indices of an inline sum of two Funcs' products as lets (`x + r.x`): the graph
// reads through them, and both reads are windows (a structure tensor's cross term).
TEST(WindowTiles, WindowsReadThroughSharedIndicesAreWindows) {
    ImageParam in{Float(32), 2, "wt_in"};
    Var x("x"), y("y");
    Func cl = BoundaryConditions::repeat_edge(in), gx("wt_gx"), gy("wt_gy"), jxy("wt_jxy");
    gx(x, y) = cl(x + 1, y) - cl(x - 1, y);
    gy(x, y) = cl(x, y + 1) - cl(x, y - 1);
    RDom r(-2, 5, -2, 5, "r");
    jxy(x, y) = sum(gx(x + r.x, y + r.y) * gy(x + r.x, y + r.y));
    in.set_estimates({{0, 1024}, {0, 1024}});
    jxy.set_estimates({{0, 1024}, {0, 1024}});
    autosched::FuncGraph g = autosched::FuncGraph::build({jxy});
    EXPECT_TRUE(g.read_through_window(g.find(gx.name()))) << g.describe();
    EXPECT_TRUE(g.read_through_window(g.find(gy.name()))) << g.describe();
}

// A morphological opening (`dy` 0: a 5 x 1 row element; 2: 5 x 5): the maximum of the minimum
// read through its own edge clamp. The clamp reads the minimum at one point per point (its halo's
// few more), so a row element's minimum is computed at each point of the clamp, which the tiles
// compute per block: one kernel. A 5 x 5 element's minimum, a 2-D window at each point of a tile's
// Func, each point would reduce alone: the register tiles take both windows, 4 rows' taps shared,
// the minimum stored. Right at every size on the host either way.
void expect_opening(int dy) {
    ImageParam in{UInt(8), 2, "wt_in"};
    Var x("x"), y("y");
    RDom r(-2, 5, -dy, 2 * dy + 1, "r");
    Func cl = BoundaryConditions::repeat_edge(in), eroded("wt_eroded"), out("wt_open");
    eroded(x, y) = minimum(cl(x + r.x, y + r.y));
    Func ce = BoundaryConditions::repeat_edge(eroded, {{0, in.dim(0).extent()}, {0, in.dim(1).extent()}});
    out(x, y) = maximum(ce(x + r.x, y + r.y));
    in.set_estimates({{0, 2048}, {0, 2048}});
    out.set_estimates({{0, 2048}, {0, 2048}});
    autosched::Plan plan = plan_for({out}, {}, true);
    if (dy == 0) {
        ASSERT_EQ(plan.kernels.size(), 1u) << plan.to_text();
        EXPECT_EQ(plan.kernels[0].template_name(), "stencil_tile") << plan.to_text();
    } else {
        for (auto &k : plan.kernels) EXPECT_NE(k.template_name(), "stencil_tile") << plan.to_text();
        EXPECT_NE(plan.to_text().find("4 rows per thread, their windows reduced together"), std::string::npos)
            << plan.to_text();
    }
    schedule_with_solder({out}, "host");
    Pipeline p(out);
    p.compile_jit(make_target("host"));
    for (auto [w, h] : kSizes) {
        SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
        Buffer<uint8_t> a(w, h);
        for (int j = 0; j < h; j++)
            for (int i = 0; i < w; i++) a(i, j) = uint8_t((i * 37 + j * 101) % 251);
        in.set(a);
        Buffer<uint8_t> o = realize_on<uint8_t>(p, {w, h}, "host");
        auto at = [&](int i, int j) { return a(std::clamp(i, 0, w - 1), std::clamp(j, 0, h - 1)); };
        auto erode = [&](int i, int j) {
            int m = 255;
            for (int v = -dy; v <= dy; v++)
                for (int u = -2; u <= 2; u++) m = std::min<int>(m, at(i + u, j + v));
            return m;
        };
        int bad = 0;
        for (int j = 0; j < h; j++)
            for (int i = 0; i < w; i++) {
                int m = 0;
                for (int v = -dy; v <= dy; v++)
                    for (int u = -2; u <= 2; u++)
                        m = std::max(m, erode(std::clamp(i + u, 0, w - 1), std::clamp(j + v, 0, h - 1)));
                bad += m != o(i, j);
            }
        EXPECT_EQ(bad, 0);
    }
}

TEST(WindowTiles, AnOpeningThroughABoundaryConditionIsOneKernel) { expect_opening(0); }

TEST(WindowTiles, ASquareOpeningTakesTheRegisterTiles) { expect_opening(2); }

// A chain of 5 x 5 box averages: each average a 2-D window computed at each point of the next
// one's tile. No window tiles: a kernel per average, in register tiles.
TEST(WindowTiles, AChainOfSquareWindowsTakesTheRegisterTiles) {
    ImageParam in{UInt(16), 2, "wt_in"};
    Var x("x"), y("y");
    Func prev = BoundaryConditions::repeat_edge(in);
    RDom r(-2, 5, -2, 5, "r");
    for (int i = 0; i < 3; i++) {
        Func s("wt_avg" + std::to_string(i));
        s(x, y) = cast<uint16_t>(sum(cast<uint32_t>(prev(x + r.x, y + r.y))) / 25);
        prev = s;
    }
    in.set_estimates({{0, 2560}, {0, 1536}});
    prev.set_estimates({{0, 2560}, {0, 1536}});
    autosched::Plan plan = plan_for({prev}, {}, true);
    for (auto &k : plan.kernels) EXPECT_NE(k.template_name(), "stencil_tile") << plan.to_text();
    autosched::PlannerOptions opt;
    autosched::plan_for_target(opt, make_target("cuda"));
    autosched::FuncGraph g = autosched::FuncGraph::build({prev});
    // The stencil template's answer for the last two averages in one kernel says why.
    std::vector<int> members;
    for (int m = 0; m < int(g.nodes.size()); m++)
        if (!g.nodes[size_t(m)].is_input && g.nodes[size_t(m)].name.find("wt_avg0") == std::string::npos &&
            g.nodes[size_t(m)].name.find("repeat_edge") == std::string::npos && m != g.find(prev.name()))
            members.push_back(m);
    bool said = false;
    for (auto &[kind, why] : autosched::template_answers(g, opt, g.find(prev.name()), members))
        said = said || why.find("reduces a 2-D window at each point of a Func computed per tile") != std::string::npos;
    EXPECT_TRUE(said) << g.describe();
}

// Gradients of a clamped image and 5 x 5 sums of their products (an optical flow's normal
// equations): what the tiles would hold is the clamped image alone (the gradients are recomputed
// in each thread), one value loaded per point, which L1 serves: the register tiles. Harris's
// luminance of three channels instead is worth computing per tile.
TEST(WindowTiles, SumsOverAClampedInputAloneTakeTheRegisterTiles) {
    for (bool luminance : {false, true}) {
        SCOPED_TRACE(luminance ? "luminance" : "one channel");
        ImageParam in{Float(32), 3, "wt_in"};
        Var x("x"), y("y");
        Func cl = BoundaryConditions::repeat_edge(in), v("wt_v"), gx("wt_gx"), gy("wt_gy"), out("wt_out");
        v(x, y) = luminance ? 0.3f * cl(x, y, 0) + 0.6f * cl(x, y, 1) + 0.1f * cl(x, y, 2) : cl(x, y, 0);
        gx(x, y) = v(x + 1, y) - v(x - 1, y);
        gy(x, y) = v(x, y + 1) - v(x, y - 1);
        RDom r(-2, 5, -2, 5, "r");
        Expr sxx = sum(gx(x + r.x, y + r.y) * gx(x + r.x, y + r.y));
        Expr syy = sum(gy(x + r.x, y + r.y) * gy(x + r.x, y + r.y));
        out(x, y) = sxx * syy;
        in.set_estimates({{0, 1920}, {0, 1080}, {0, 3}});
        out.set_estimates({{0, 1920}, {0, 1080}});
        autosched::Plan plan = plan_for({out}, {}, true);
        bool tiles = false;
        for (auto &k : plan.kernels) tiles = tiles || k.template_name() == "stencil_tile";
        EXPECT_EQ(tiles, luminance) << plan.to_text();
    }
}

// A separable 7-tap blur whose weights are a buffer (`k(r)`): the weights are read at the RDom's
// points wherever a tile falls, so edge tiles still shift inwards (whole tiles, shared memory of
// one size, not sized on the host before each launch). Right at sizes from 300 x 200 to one
// point, narrower and shorter than a tile, on the host and OpenCL.
TEST(WindowTiles, ABlurWithWeightsInABufferShiftsItsEdgeTilesInwardsAndRunsOnOpenCL) {
    for (const std::string &target : user_targets()) {
        ImageParam in{Float(32), 2, "wt_in"}, k{Float(32), 1, "wt_k"};
        Var x("x"), y("y");
        Func cl = BoundaryConditions::repeat_edge(in), bx("wt_bx"), out("wt_out");
        RDom r(0, 7, "r");
        bx(x, y) = sum(cl(x + r - 3, y) * k(r));
        out(x, y) = sum(bx(x, y + r - 3) * k(r));
        in.set_estimates({{0, 3840}, {0, 2160}});
        k.set_estimates({{0, 7}});
        out.set_estimates({{0, 3840}, {0, 2160}});
        const std::string plan = schedule_with_solder({out}, target);
        if (target != "host") {
            EXPECT_NE(plan.find("[stencil_tile, edge tiles shifted inwards where the output spans a tile"),
                      std::string::npos)
                << plan;
        }
        Pipeline p(out);
        p.compile_jit(make_target(target));
        Buffer<float> w(7);
        for (int i = 0; i < 7; i++) w(i) = float(i + 1) / 28.0f;
        k.set(w);
        for (auto [W, H] : kSizes) {
            SCOPED_TRACE(target + " " + std::to_string(W) + "x" + std::to_string(H));
            Buffer<float> a(W, H);
            for (int j = 0; j < H; j++)
                for (int i = 0; i < W; i++) a(i, j) = float((i * 7 + j * 13) % 17) - 8.0f;
            in.set(a);
            Buffer<float> o = realize_on<float>(p, {W, H}, target);
            int bad = 0;
            for (int j = 0; j < H; j++)
                for (int i = 0; i < W; i++) {
                    double s = 0;
                    for (int v = 0; v < 7; v++)
                        for (int u = 0; u < 7; u++)
                            s += double(w(v)) * w(u) *
                                 a(std::clamp(i + u - 3, 0, W - 1), std::clamp(j + v - 3, 0, H - 1));
                    bad += std::abs(s - double(o(i, j))) > 1e-4;
                }
            EXPECT_EQ(bad, 0);
        }
    }
}
