// Reductions over a small window of constant extent at each point, read one to one by a pure root
// (a convolution with its weights in a buffer, an erosion, a depthwise filter over channels): on a
// GPU the pointwise template computes 4 rows per thread, the windows together in registers
// (schedules/pointwise/register_tile.h). Planned at one size, run at others (not multiples of the
// tile, fewer rows than a thread's, one point) on the host and OpenCL against plain C++.
#include <algorithm>
#include <array>
#include <cmath>

#include <gtest/gtest.h>

#include "tests/support/user_pipeline.h"

using namespace Halide;
using namespace solder::testing;

namespace {

const char *kRegisterTile = "their windows reduced together in registers";

const std::vector<std::pair<int, int>> kSizes{{300, 200}, {37, 29}, {517, 3}, {33, 1}, {2, 2}, {1, 1}};

int clamped(int v, int n) { return std::clamp(v, 0, n - 1); }

// `out` planned by Solder for `target` (its plan's text into `plan`), with register tiles on a GPU
// and not on the host, and JIT-compiled.
Pipeline planned(Func out, const std::string &target, std::string &plan, const char *expect = kRegisterTile) {
    plan = schedule_with_solder({out}, target);
    EXPECT_EQ(plan.find(expect) != std::string::npos, target != "host") << out.name() << "\n" << plan;
    Pipeline p(out);
    p.compile_jit(solder::make_target(target));
    return p;
}

// The sum over an n x n window from (x + lo, y + lo) of `a` read at `at(i, n)` in each dim (a
// boundary condition), each point weighted by `wb` at its offset in the window.
template<typename At>
double weighted_window(const Buffer<float> &a, const Buffer<float> &wb, int x, int y, int lo, int n, At at) {
    double s = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) s += double(a(at(x + lo + i, a.width()), at(y + lo + j, a.height()))) * wb(i, j);
    return s;
}

}  // namespace

// `sum` over a 5 x 5 window of a clamped image, weighted by a buffer: the inline reduction users write.
TEST(RegisterTiles, AWeightedWindowSumAtAnySize) {
    for (auto &target : user_targets()) {
        SCOPED_TRACE(target);
        ImageParam in(Float(32), 2, "rin"), w(Float(32), 2, "rw");
        Var x("x"), y("y");
        Func cl = BoundaryConditions::repeat_edge(in);
        RDom k(0, 5, 0, 5, "k");
        Func out("rout");
        out(x, y) = sum(cl(x + k.x - 2, y + k.y - 2) * w(k.x, k.y));
        in.set_estimates({{0, 1920}, {0, 1080}});
        w.set_estimates({{0, 5}, {0, 5}});
        out.set_estimates({{0, 1920}, {0, 1080}});
        std::string plan;
        Pipeline p = planned(out, target, plan);
        auto wb = random_buffer<float>({5, 5}, 81, -1, 1);
        w.set(wb);
        for (auto [W, H] : kSizes) {
            SCOPED_TRACE(std::to_string(W) + "x" + std::to_string(H));
            auto a = random_buffer<float>({W, H}, 82, -1, 1);
            in.set(a);
            Buffer<float> o = realize_on<float>(p, {W, H}, target);
            EXPECT_TRUE(matches(
                o, [&](auto &q) { return weighted_window(a, wb, q[0], q[1], -2, 5, clamped); }, 1e-5))
                << plan;
        }
    }
}

// A convolution with no boundary condition, written as a reduction Func and a ReLU: the output is
// 2 points smaller than the input on each side, so a thread's rows past the output's last row
// would read past the input's.
TEST(RegisterTiles, AValidConvolutionReadsNoRowPastItsInput) {
    for (auto &target : user_targets()) {
        SCOPED_TRACE(target);
        ImageParam in(Float(32), 2, "vin"), w(Float(32), 2, "vw");
        Var x("x"), y("y");
        RDom k(0, 5, 0, 5, "k");
        Func conv("vconv"), out("vout");
        conv(x, y) = 0.0f;
        conv(x, y) += in(x + k.x, y + k.y) * w(k.x, k.y);
        out(x, y) = max(conv(x, y), 0.0f);
        in.set_estimates({{0, 1924}, {0, 1084}});
        w.set_estimates({{0, 5}, {0, 5}});
        out.set_estimates({{0, 1920}, {0, 1080}});
        std::string plan;
        Pipeline p = planned(out, target, plan);
        auto wb = random_buffer<float>({5, 5}, 83, -1, 1);
        w.set(wb);
        for (auto [W, H] : kSizes) {
            SCOPED_TRACE(std::to_string(W) + "x" + std::to_string(H));
            auto a = random_buffer<float>({W + 4, H + 4}, 84, -1, 1);
            in.set(a);
            Buffer<float> o = realize_on<float>(p, {W, H}, target);
            auto inside = [](int v, int) { return v; };
            EXPECT_TRUE(matches(
                o, [&](auto &q) { return std::max(weighted_window(a, wb, q[0], q[1], 0, 5, inside), 0.0); }, 1e-5))
                << plan;
        }
    }
}

// An 8-bit erosion (`minimum` over 5 x 5) and a depthwise 3 x 3 filter over 16 channels, each
// channel its own weights, zero outside the image.
TEST(RegisterTiles, AnErosionAndADepthwiseFilterAtAnySize) {
    for (auto &target : user_targets()) {
        SCOPED_TRACE(target);
        ImageParam img(UInt(8), 2, "ein"), in(Float(32), 3, "din"), w(Float(32), 3, "dw");
        Var x("x"), y("y"), c("c");
        RDom r(-2, 5, -2, 5, "r"), k(0, 3, 0, 3, "k");
        Func eroded("eroded"), dw("dout");
        Func ecl = BoundaryConditions::repeat_edge(img);
        Func dcl = BoundaryConditions::constant_exterior(in, 0.0f);
        eroded(x, y) = minimum(ecl(x + r.x, y + r.y));
        dw(x, y, c) = sum(dcl(x + k.x - 1, y + k.y - 1, c) * w(k.x, k.y, c));
        img.set_estimates({{0, 1920}, {0, 1080}});
        in.set_estimates({{0, 960}, {0, 540}, {0, 16}});
        w.set_estimates({{0, 3}, {0, 3}, {0, 16}});
        eroded.set_estimates({{0, 1920}, {0, 1080}});
        dw.set_estimates({{0, 960}, {0, 540}, {0, 16}});
        std::string plan_e, plan_d;
        Pipeline pe = planned(eroded, target, plan_e), pd = planned(dw, target, plan_d);
        const int C = 3;
        auto wb = random_buffer<float>({3, 3, C}, 85, -1, 1);
        w.set(wb);
        for (auto [W, H] : kSizes) {
            SCOPED_TRACE(std::to_string(W) + "x" + std::to_string(H));
            auto e = random_buffer<uint8_t>({W, H}, 86, 0, 255);
            auto a = random_buffer<float>({W, H, C}, 87, -1, 1);
            img.set(e);
            in.set(a);
            Buffer<uint8_t> oe = realize_on<uint8_t>(pe, {W, H}, target);
            Buffer<float> od = realize_on<float>(pd, {W, H, C}, target);
            EXPECT_TRUE(matches(
                oe,
                [&](auto &q) {
                    int m = 255;
                    for (int j = -2; j <= 2; j++)
                        for (int i = -2; i <= 2; i++)
                            m = std::min<int>(m, e(clamped(q[0] + i, W), clamped(q[1] + j, H)));
                    return double(m);
                },
                0))
                << plan_e;
            EXPECT_TRUE(matches(
                od,
                [&](auto &q) {
                    double s = 0;
                    for (int j = 0; j < 3; j++)
                        for (int i = 0; i < 3; i++) {
                            const int u = q[0] + i - 1, v = q[1] + j - 1;
                            if (u >= 0 && u < W && v >= 0 && v < H) s += double(a(u, v, q[2])) * wb(i, j, q[2]);
                        }
                    return s;
                },
                1e-5))
                << plan_d;
        }
    }
}

// The reduction as the output itself, from a bias, over a mirrored border: its window goes to an
// intermediate computed per thread (the output's readers cannot read a copy of it).
TEST(RegisterTiles, AnOutputThatIsTheReductionAtAnySize) {
    for (auto &target : user_targets()) {
        SCOPED_TRACE(target);
        ImageParam in(Float(32), 2, "oin"), w(Float(32), 2, "ow");
        Var x("x"), y("y");
        Func cl = BoundaryConditions::mirror_interior(in);
        RDom k(-1, 3, -1, 3, "k");
        Func conv("oconv");
        conv(x, y) = 0.5f;
        conv(x, y) += cl(x + k.x, y + k.y) * w(k.x + 1, k.y + 1);
        in.set_estimates({{0, 1920}, {0, 1080}});
        w.set_estimates({{0, 3}, {0, 3}});
        conv.set_estimates({{0, 1920}, {0, 1080}});
        std::string plan;
        Pipeline p = planned(conv, target, plan, "an intermediate of the root's window");
        auto wb = random_buffer<float>({3, 3}, 88, -1, 1);
        w.set(wb);
        for (auto [W, H] : kSizes) {
            if (W < 2 || H < 2) continue;  // (mirror_interior needs two points in each dim)
            SCOPED_TRACE(std::to_string(W) + "x" + std::to_string(H));
            auto a = random_buffer<float>({W, H}, 89, -1, 1);
            in.set(a);
            auto mirrored = [](int v, int n) {
                const int period = 2 * (n - 1);
                v = ((v % period) + period) % period;
                return v < n ? v : period - v;
            };
            Buffer<float> o = realize_on<float>(p, {W, H}, target);
            EXPECT_TRUE(matches(
                o, [&](auto &q) { return 0.5 + weighted_window(a, wb, q[0], q[1], -1, 3, mirrored); }, 1e-5))
                << plan;
        }
    }
}

// Two window sums read through pure Funcs inlined into the root (`out = vsum / wsum`, a range-
// weighted mean: a bilateral filter's core), each computed per thread for its rows.
TEST(RegisterTiles, WindowSumsReadThroughPureFuncsAtAnySize) {
    for (auto &target : user_targets()) {
        SCOPED_TRACE(target);
        ImageParam in(Float(32), 2, "bin");
        Var x("x"), y("y");
        Func cl = BoundaryConditions::repeat_edge(in);
        RDom r(-1, 3, -1, 3, "r");
        Func wsum("wsum"), vsum("vsum"), out("bout");
        Expr d = cl(x + r.x, y + r.y) - cl(x, y);
        Expr wt = 1.0f / (1.0f + d * d);
        wsum(x, y) = sum(wt);
        vsum(x, y) = sum(wt * cl(x + r.x, y + r.y));
        out(x, y) = vsum(x, y) / wsum(x, y);
        in.set_estimates({{0, 1920}, {0, 1080}});
        out.set_estimates({{0, 1920}, {0, 1080}});
        std::string plan;
        Pipeline p = planned(out, target, plan);
        for (auto [W, H] : kSizes) {
            SCOPED_TRACE(std::to_string(W) + "x" + std::to_string(H));
            auto a = random_buffer<float>({W, H}, 90, -1, 1);
            in.set(a);
            Buffer<float> o = realize_on<float>(p, {W, H}, target);
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    double ws = 0, vs = 0;
                    const double c = a(q[0], q[1]);
                    for (int j = -1; j <= 1; j++)
                        for (int i = -1; i <= 1; i++) {
                            const double v = a(clamped(q[0] + i, W), clamped(q[1] + j, H));
                            const double wt = 1.0 / (1.0 + (v - c) * (v - c));
                            ws += wt, vs += wt * v;
                        }
                    return vs / ws;
                },
                1e-5))
                << plan;
        }
    }
}

// A window whose size comes from its weights' buffer (`RDom k(0, w.width(), 0, w.height())`),
// planned at 5 x 5 and run at 3 x 3 and 7 x 7: its steps stay loops, each still serving the rows.
TEST(RegisterTiles, AWindowSizedByItsWeightsAtAnySize) {
    for (auto &target : user_targets()) {
        SCOPED_TRACE(target);
        ImageParam in(Float(32), 2, "pin"), w(Float(32), 2, "pw");
        Var x("x"), y("y");
        Func cl = BoundaryConditions::repeat_edge(in);
        Expr kw = w.dim(0).extent(), kh = w.dim(1).extent();
        RDom k(0, kw, 0, kh, "k");
        Func out("pout");
        out(x, y) = sum(cl(x + k.x - kw / 2, y + k.y - kh / 2) * w(k.x, k.y));
        in.set_estimates({{0, 1920}, {0, 1080}});
        w.set_estimates({{0, 5}, {0, 5}});
        out.set_estimates({{0, 1920}, {0, 1080}});
        std::string plan;
        Pipeline p = planned(out, target, plan);
        for (int n : {3, 7}) {
            auto wb = random_buffer<float>({n, n}, 91, -1, 1);
            w.set(wb);
            for (auto [W, H] : kSizes) {
                SCOPED_TRACE(std::to_string(W) + "x" + std::to_string(H) + ", window " + std::to_string(n));
                auto a = random_buffer<float>({W, H}, 92, -1, 1);
                in.set(a);
                Buffer<float> o = realize_on<float>(p, {W, H}, target);
                EXPECT_TRUE(matches(
                    o, [&](auto &q) { return weighted_window(a, wb, q[0], q[1], -(n / 2), n, clamped); }, 1e-5))
                    << plan;
            }
        }
    }
}

// A reduction over channels only whose extent is known at run time (a 1 x 1 convolution): its steps
// would stay loops and neighbouring rows share none of its reads, so it keeps one point per thread.
TEST(RegisterTiles, AChannelSumSizedAtRunTimeIsNotTiled) {
    ImageParam in(Float(32), 3, "cin"), w(Float(32), 2, "cw");
    Var x("x"), y("y"), c("c");
    RDom ci(0, in.dim(2).extent(), "ci");
    Func out("cout");
    out(x, y, c) = sum(in(x, y, ci) * w(ci, c));
    in.set_estimates({{0, 112}, {0, 112}, {0, 32}});
    w.set_estimates({{0, 32}, {0, 32}});
    out.set_estimates({{0, 112}, {0, 112}, {0, 32}});
    const std::string plan = schedule_with_solder({out}, "opencl");
    EXPECT_NE(plan.find("cout"), std::string::npos) << plan;
    EXPECT_EQ(plan.find(kRegisterTile), std::string::npos) << plan;
}

// A stored window reduction read at other points than its own: a stereo matcher's 3 x 3 sums of
// absolute differences per disparity, then the disparity of the least sum (the arg-min reads 8
// disparities of each pixel). The sums take the intermediate of the output form; a stored 5-tap
// pass along rows does not (its rows' windows do not overlap: measured slower on the H100).
TEST(RegisterTiles, AStoredWindowReadAtOtherPointsAtAnySize) {
    for (auto &target : user_targets()) {
        SCOPED_TRACE(target);
        ImageParam L(UInt(8), 2, "sl"), R(UInt(8), 2, "sr");
        Var x("x"), y("y"), d("d");
        Func cl = BoundaryConditions::repeat_edge(L), cr = BoundaryConditions::repeat_edge(R);
        Func sad("sad"), out("disp");
        RDom w(-1, 3, -1, 3, "w");
        sad(x, y, d) = sum(cast<uint16_t>(absd(cl(x + w.x, y + w.y), cr(x + w.x - d, y + w.y))));
        RDom rd(0, 8, "rd");
        out(x, y) = cast<uint8_t>(argmin(sad(x, y, rd))[0]);
        L.set_estimates({{0, 640}, {0, 480}});
        R.set_estimates({{0, 640}, {0, 480}});
        out.set_estimates({{0, 640}, {0, 480}});
        std::string plan;
        Pipeline p = planned(out, target, plan, "(an intermediate of the root's window)");
        for (auto [W, H] : kSizes) {
            SCOPED_TRACE(std::to_string(W) + "x" + std::to_string(H));
            auto a = random_buffer<uint8_t>({W, H}, 81, 0, 255), b = random_buffer<uint8_t>({W, H}, 82, 0, 255);
            L.set(a);
            R.set(b);
            Buffer<uint8_t> o = realize_on<uint8_t>(p, {W, H}, target);
            auto cost = [&](int i, int j, int k) {
                int s = 0;
                for (int v = -1; v <= 1; v++)
                    for (int u = -1; u <= 1; u++)
                        s += std::abs(int(a(clamped(i + u, W), clamped(j + v, H))) -
                                      int(b(clamped(i + u - k, W), clamped(j + v, H))));
                return s;
            };
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    int best = 0;
                    for (int k = 1; k < 8; k++)
                        if (cost(q[0], q[1], k) < cost(q[0], q[1], best)) best = k;
                    return double(best);
                },
                0))
                << plan;
        }
    }
    ImageParam in(Float(32), 2, "rin");
    Var x("x"), y("y");
    Func cl = BoundaryConditions::repeat_edge(in);
    Func bx("bx"), out("rout");
    RDom r(0, 5, "r");
    bx(x, y) = sum(cl(x + r - 2, y));
    out(x, y) = bx(x, y - 1) + bx(x, y + 1);
    in.set_estimates({{0, 1920}, {0, 1080}});
    out.set_estimates({{0, 1920}, {0, 1080}});
    const std::string plan = schedule_with_solder({out}, "cuda");
    EXPECT_EQ(plan.find("(an intermediate of the root's window)"), std::string::npos) << plan;
}

// A block matcher: each 8 x 8 block's sums of absolute differences against 9 x 9 offsets into the
// previous frame (clamped), then the offset of the least. `sum` names its vars as its expression
// meets them (the blocks' bx, by, then the offsets dx, dy), and is stored for the arg-min. The
// blocks' windows lie 8 apart and do not overlap; the offsets' do, so each thread computes all 9
// offsets dx of its block, the current block's loads shared by them (register_rows_dim,
// rows_apart). Planned at one size, run at others.
TEST(RegisterTiles, ABlockMatcherSharesItsBlockAcrossOffsetsAtAnySize) {
    for (auto &target : user_targets()) {
        SCOPED_TRACE(target);
        ImageParam cur(UInt(8), 2, "bcur"), prev(UInt(8), 2, "bprev");
        Func pc = BoundaryConditions::repeat_edge(prev);
        Var bx("bx"), by("by"), dx("dx"), dy("dy");
        RDom p(0, 8, 0, 8, "bp"), s(-4, 9, -4, 9, "bs");
        Func sad("bsad"), out("bbest");
        sad(dx, dy, bx, by) =
            sum(cast<uint16_t>(absd(cur(8 * bx + p.x, 8 * by + p.y), pc(8 * bx + p.x + dx, 8 * by + p.y + dy))));
        Tuple best = argmin(sad(s.x, s.y, bx, by));
        out(bx, by) = cast<int>(best[0]) * 16 + cast<int>(best[1]);
        cur.set_estimates({{0, 1920}, {0, 1088}});
        prev.set_estimates({{0, 1920}, {0, 1088}});
        out.set_estimates({{0, 240}, {0, 136}});
        std::string plan;
        Pipeline pl = planned(out, target, plan, "9 points of dim 2 per thread");
        for (auto [W, H] : std::vector<std::pair<int, int>>{{37, 29}, {9, 7}, {33, 1}, {1, 1}}) {
            SCOPED_TRACE(std::to_string(W) + "x" + std::to_string(H));
            const int iw = 8 * W + 3, ih = 8 * H + 1;
            auto a = random_buffer<uint8_t>({iw, ih}, 83, 0, 255), b = random_buffer<uint8_t>({iw, ih}, 84, 0, 255);
            cur.set(a);
            prev.set(b);
            Buffer<int> o = realize_on<int>(pl, {W, H}, target);
            auto cost = [&](int i, int j, int u, int v) {
                int c = 0;
                for (int py = 0; py < 8; py++)
                    for (int px = 0; px < 8; px++)
                        c += std::abs(int(a(8 * i + px, 8 * j + py)) -
                                      int(b(clamped(8 * i + px + u, iw), clamped(8 * j + py + v, ih))));
                return c;
            };
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    int bu = -4, bv = -4, least = cost(q[0], q[1], -4, -4);
                    for (int v = -4; v <= 4; v++)
                        for (int u = -4; u <= 4; u++)
                            if (int c = cost(q[0], q[1], u, v); c < least) least = c, bu = u, bv = v;
                    return double(bu * 16 + bv);
                },
                0))
                << plan;
        }
    }
}

// A diamond's maxima over a radius Param, each column of it read at two rows its height apart
// (the height a table Func of the column, clamped): the taps' args are bound in lets, which the
// register tile's test of a window moving along the image looks through.
TEST(RegisterTiles, ADiamondOfMaximaWithItsTapsInLetsAtAnySize) {
    for (auto &target : user_targets()) {
        SCOPED_TRACE(target);
        ImageParam in(Float(32), 2, "din");
        Param<int> radius("dradius");
        Var x("x"), y("y");
        Func cl = BoundaryConditions::repeat_edge(in);
        Expr rad = clamp(radius, 0, 15);
        Func height("dheight"), out("dout");
        height(x) = rad - abs(x);
        RDom d(-rad, 2 * rad + 1, "d");
        Expr h = clamp(height(d), 0, rad);
        out(x, y) = maximum(max(cl(x + d, y - h), cl(x + d, y + h)));
        in.set_estimates({{0, 1920}, {0, 1080}});
        radius.set_estimate(4);
        out.set_estimates({{0, 1920}, {0, 1080}});
        std::string plan;
        Pipeline p = planned(out, target, plan);
        radius.set(2);
        for (auto [W, H] : kSizes) {
            SCOPED_TRACE(std::to_string(W) + "x" + std::to_string(H));
            auto a = random_buffer<float>({W, H}, 93, -1, 1);
            in.set(a);
            Buffer<float> o = realize_on<float>(p, {W, H}, target);
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    float m = -INFINITY;
                    for (int dx = -2; dx <= 2; dx++) {
                        const int hh = 2 - std::abs(dx), i = clamped(q[0] + dx, W);
                        m = std::max({m, a(i, clamped(q[1] - hh, H)), a(i, clamped(q[1] + hh, H))});
                    }
                    return m;
                },
                0))
                << plan;
        }
    }
}

// An output reducing a 5 x 5 window at each point of 4 channels whose weights (an exponential of a
// difference, computed per pixel and offset) are the same for every channel, as non-local means'
// weighted colour sums and their total: each thread computes the 4 channels of its rows, the
// weights once for them. Run with 4 channels and with 3 and 6 (not a multiple of 4).
TEST(RegisterTiles, ChannelsSharingTheirWeightsAtAnySize) {
    for (auto &target : user_targets()) {
        SCOPED_TRACE(target);
        ImageParam in(Float(32), 3, "sin");
        Var x("x"), y("y"), c("c"), dx("dx"), dy("dy");
        Func e = BoundaryConditions::repeat_edge(in);
        Func wt("swt"), acc("sacc");
        wt(x, y, dx, dy) = exp(-(e(x, y, 0) - e(x + dx, y + dy, 0)) * (e(x, y, 0) - e(x + dx, y + dy, 0)));
        RDom o(-2, 5, -2, 5, "o");
        acc(x, y, c) = 0.0f;
        acc(x, y, c) += wt(x, y, o.x, o.y) * e(x + o.x, y + o.y, c);
        in.set_estimates({{0, 1920}, {0, 1080}, {0, 4}});
        acc.set_estimates({{0, 1920}, {0, 1080}, {0, 4}});
        std::string plan;
        Pipeline p = planned(acc, target, plan, "with 4 points of dim 2 sharing their window's common work");
        for (auto [W, H, C] : std::vector<std::array<int, 3>>{{300, 200, 4}, {37, 29, 3}, {33, 5, 6}, {1, 1, 1}}) {
            SCOPED_TRACE(std::to_string(W) + "x" + std::to_string(H) + "x" + std::to_string(C));
            auto a = random_buffer<float>({W, H, C}, 90, 0, 1);
            in.set(a);
            Buffer<float> out = realize_on<float>(p, {W, H, C}, target);
            EXPECT_TRUE(matches(
                out,
                [&](auto &q) {
                    auto at = [&](int i, int j, int ch) { return double(a(clamped(i, W), clamped(j, H), ch)); };
                    double s = 0;
                    for (int j = -2; j <= 2; j++)
                        for (int i = -2; i <= 2; i++) {
                            const double d = at(q[0], q[1], 0) - at(q[0] + i, q[1] + j, 0);
                            s += std::exp(-d * d) * at(q[0] + i, q[1] + j, q[2]);
                        }
                    return s;
                },
                1e-4))
                << plan;
        }
    }
}

// A window strided apart with nothing else read (a 2 x 2 max pool with stride 2) shares no work
// among a thread's rows: one point per thread. A weighted one (the same pool's points weighted by
// a 2 x 2 buffer, loaded once for the rows) keeps its rows.
TEST(RegisterTiles, AStridedWindowSharingNothingTakesAPointPerThread) {
    for (bool weighted : {false, true}) {
        for (auto &target : user_targets()) {
            SCOPED_TRACE(target + (weighted ? " weighted" : " max"));
            ImageParam in(Float(32), 3, "pin"), wt(Float(32), 2, "pw");
            Var x("x"), y("y"), c("c");
            RDom r(0, 2, 0, 2, "r");
            Func pool("pool");
            if (weighted)
                pool(x, y, c) = sum(in(2 * x + r.x, 2 * y + r.y, c) * wt(r.x, r.y));
            else
                pool(x, y, c) = maximum(in(2 * x + r.x, 2 * y + r.y, c));
            in.set_estimates({{0, 1920}, {0, 1080}, {0, 16}});
            wt.set_estimates({{0, 2}, {0, 2}});
            pool.set_estimates({{0, 960}, {0, 540}, {0, 16}});
            const std::string plan = schedule_with_solder({pool}, target);
            EXPECT_EQ(plan.find(kRegisterTile) != std::string::npos, weighted && target != "host") << plan;
            Pipeline p(pool);
            p.compile_jit(solder::make_target(target));
            auto wb = random_buffer<float>({2, 2}, 91, -1, 1);
            wt.set(wb);
            for (auto [W, H] : std::vector<std::pair<int, int>>{{300, 200}, {37, 29}, {1, 1}}) {
                SCOPED_TRACE(std::to_string(W) + "x" + std::to_string(H));
                auto a = random_buffer<float>({2 * W, 2 * H, 3}, 92, -1, 1);
                in.set(a);
                Buffer<float> o = realize_on<float>(p, {W, H, 3}, target);
                EXPECT_TRUE(matches(
                    o,
                    [&](auto &q) {
                        double m = weighted ? 0.0 : -1e30;
                        for (int j = 0; j < 2; j++)
                            for (int i = 0; i < 2; i++) {
                                const double v = a(2 * q[0] + i, 2 * q[1] + j, q[2]);
                                m = weighted ? m + v * wb(i, j) : std::max(m, v);
                            }
                        return m;
                    },
                    1e-5))
                    << plan;
            }
        }
    }
}
