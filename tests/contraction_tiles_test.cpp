// Contractions (a matrix product, attention's scores, batched): a reduction at each point over
// many steps whose operands each skip one of its two innermost dims. On a GPU the pointwise
// template computes 4 x 4 points per thread, each operand's load shared by 4 of them
// (schedules/pointwise/register_tile.h). Planned at one size, run at others (not multiples of the
// tile, fewer points than a thread's, one step, one point) on the host and OpenCL against plain C++.
#include <array>
#include <cmath>

#include <gtest/gtest.h>

#include "tests/support/user_pipeline.h"

using namespace Halide;
using namespace solder::testing;

namespace {

const char *kContraction = "a contraction's steps shared by them in registers";

// (columns, rows, steps)
const std::vector<std::array<int, 3>> kSizes{{300, 200, 70}, {68, 36, 12}, {37, 29, 5},
                                             {517, 3, 1},    {2, 70, 3},   {1, 1, 9}};

// `outs` planned by Solder for `target` (its plan's text into `plan`); the contraction layout
// expected on a GPU where `expect`, and never on the host.
Pipeline planned(const std::vector<Func> &outs, const std::string &target, std::string &plan, bool expect = true) {
    plan = schedule_with_solder(outs, target);
    EXPECT_EQ(plan.find(kContraction) != std::string::npos, expect && target != "host") << plan;
    return compiled(outs, target);
}

}  // namespace

// The product written as the output's update, the steps over an input's extent (`out(x, y) +=
// A(k, y) * B(x, k)`): its steps go to an intermediate.
TEST(ContractionTiles, AMatrixProductWrittenAsTheOutput) {
    for (auto &target : user_targets()) {
        SCOPED_TRACE(target);
        ImageParam A(Float(32), 2, "cA"), B(Float(32), 2, "cB");
        Var x("x"), y("y");
        RDom k(0, A.dim(0).extent(), "k");
        Func out("cout");
        out(x, y) = 0.0f;
        out(x, y) += A(k, y) * B(x, k);
        A.set_estimates({{0, 1024}, {0, 1024}});
        B.set_estimates({{0, 1024}, {0, 1024}});
        out.set_estimates({{0, 1024}, {0, 1024}});
        std::string plan;
        Pipeline p = planned({out}, target, plan);
        for (auto [W, H, K] : kSizes) {
            SCOPED_TRACE(std::to_string(W) + "x" + std::to_string(H) + "x" + std::to_string(K));
            auto a = random_buffer<float>({K, H}, 11, -1, 1), b = random_buffer<float>({W, K}, 12, -1, 1);
            A.set(a), B.set(b);
            Buffer<float> o = realize_on<float>(p, {W, H}, target);
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    double s = 0;
                    for (int i = 0; i < K; i++) s += double(a(i, q[1])) * b(q[0], i);
                    return s;
                },
                1e-5))
                << plan;
        }
    }
}

// Both operands along the steps in memory (`sum(Q(k, y) * K(k, x))`: attention's scores), read by a
// pure root that adds a bias and clamps: the product is a member computed per thread.
TEST(ContractionTiles, AProductReadByAPointwiseRoot) {
    for (auto &target : user_targets()) {
        SCOPED_TRACE(target);
        ImageParam Q(Float(32), 2, "nQ"), Kt(Float(32), 2, "nK"), bias(Float(32), 1, "nbias");
        Var x("x"), y("y");
        RDom k(0, Q.dim(0).extent(), "k");
        Func prod("nprod"), out("nout");
        prod(x, y) = sum(Q(k, y) * Kt(k, x));
        out(x, y) = max(prod(x, y) + bias(x), 0.0f);
        Q.set_estimates({{0, 64}, {0, 2048}});
        Kt.set_estimates({{0, 64}, {0, 2048}});
        bias.set_estimates({{0, 2048}});
        out.set_estimates({{0, 2048}, {0, 2048}});
        std::string plan;
        Pipeline p = planned({out}, target, plan);
        for (auto [W, H, K] : kSizes) {
            SCOPED_TRACE(std::to_string(W) + "x" + std::to_string(H) + "x" + std::to_string(K));
            auto q = random_buffer<float>({K, H}, 21, -1, 1), kt = random_buffer<float>({K, W}, 22, -1, 1);
            auto bb = random_buffer<float>({W}, 23, -1, 1);
            Q.set(q), Kt.set(kt), bias.set(bb);
            Buffer<float> o = realize_on<float>(p, {W, H}, target);
            EXPECT_TRUE(matches(
                o,
                [&](auto &c) {
                    double s = 0;
                    for (int i = 0; i < K; i++) s += double(q(i, c[1])) * kt(i, c[0]);
                    return std::max(s + bb(c[0]), 0.0);
                },
                1e-5))
                << plan;
        }
    }
}

// A linear layer with its weights as PyTorch lays them out (`w(k, o) * x(k, n)`): both operands
// are read along the steps, and on a GPU each thread loads 4 steps of each of its rows as one
// vector, in a branch where the inputs' rows start at whole vectors and the steps are whole
// vectors (schedules/pointwise/operand_vectors.h); one step at a time elsewhere. The steps run over
// the input's own range (its min too), so that buffers with their rows at other offsets, and rows
// that do not start at whole vectors (a stride of 18), take the general branch.
TEST(ContractionTiles, ALinearLayerLoadsItsOperandsAlongTheSteps) {
    for (auto &target : user_targets()) {
        SCOPED_TRACE(target);
        ImageParam X(Float(32), 2, "lx"), Wt(Float(32), 2, "lw"), bias(Float(32), 1, "lbias");
        Var o("o"), n("n");
        RDom k(X.dim(0).min(), X.dim(0).extent(), "k");
        Func lin("llin"), out("lout");
        lin(o, n) = sum(Wt(k, o) * X(k, n));
        out(o, n) = lin(o, n) + bias(o);
        X.set_estimates({{0, 512}, {0, 2048}});
        Wt.set_estimates({{0, 512}, {0, 2048}});
        bias.set_estimates({{0, 2048}});
        out.set_estimates({{0, 2048}, {0, 2048}});
        std::string plan;
        Pipeline p = planned({out}, target, plan);
        if (target != "host") {
            EXPECT_NE(plan.find(".specialize(aligned_"), std::string::npos) << plan;
        }
        // (outputs, samples, steps, the inputs' min along the steps, padding after each row)
        const std::vector<std::array<int, 5>> cases{{37, 29, 16, 0, 0}, {68, 36, 20, 4, 0}, {70, 9, 18, 0, 0},
                                                    {37, 29, 16, 2, 0}, {40, 7, 16, 0, 2},  {1, 1, 4, 0, 0}};
        for (auto [O, N, K, min, pad] : cases) {
            SCOPED_TRACE(std::to_string(O) + "x" + std::to_string(N) + "x" + std::to_string(K) + " min " +
                         std::to_string(min) + " pad " + std::to_string(pad));
            auto rows = [&](int count, uint32_t seed) {
                Buffer<float> b = random_buffer<float>({K + pad, count}, seed, -1, 1).cropped(0, 0, K);
                b.set_min(min, 0);
                return b;
            };
            Buffer<float> x = rows(N, 51), w = rows(O, 52), bb = random_buffer<float>({O}, 53, -1, 1);
            X.set(x), Wt.set(w), bias.set(bb);
            Buffer<float> res = realize_on<float>(p, {O, N}, target);
            EXPECT_TRUE(matches(
                res,
                [&](auto &c) {
                    double s = bb(c[0]);
                    for (int i = min; i < min + K; i++) s += double(w(i, c[0])) * x(i, c[1]);
                    return s;
                },
                1e-5))
                << plan;
        }
    }
}

// A batch of products (a third dim, the batch, over blocks), integer operands.
TEST(ContractionTiles, ABatchOfIntegerProducts) {
    for (auto &target : user_targets()) {
        SCOPED_TRACE(target);
        ImageParam A(Int(16), 3, "bA"), B(Int(16), 3, "bB");
        Var x("x"), y("y"), b("b");
        RDom k(0, A.dim(0).extent(), "k");
        Func out("bout");
        out(x, y, b) = 0;
        out(x, y, b) += cast<int>(A(k, y, b)) * cast<int>(B(x, k, b));
        A.set_estimates({{0, 128}, {0, 256}, {0, 8}});
        B.set_estimates({{0, 256}, {0, 128}, {0, 8}});
        out.set_estimates({{0, 256}, {0, 256}, {0, 8}});
        std::string plan;
        Pipeline p = planned({out}, target, plan);
        for (auto [W, H, K] : kSizes) {
            SCOPED_TRACE(std::to_string(W) + "x" + std::to_string(H) + "x" + std::to_string(K));
            auto a = random_buffer<int16_t>({K, H, 3}, 31, -100, 100),
                 bb = random_buffer<int16_t>({W, K, 3}, 32, -100, 100);
            A.set(a), B.set(bb);
            Buffer<int> o = realize_on<int>(p, {W, H, 3}, target);
            EXPECT_TRUE(matches(
                o,
                [&](auto &c) {
                    int64_t s = 0;
                    for (int i = 0; i < K; i++) s += int64_t(a(i, c[1], c[2])) * bb(c[0], i, c[2]);
                    return double(s);
                },
                0))
                << plan;
        }
    }
}

// A 1 x 1 convolution over channels (`w(c, k) * in(x, y, c)`, bias first, then a ReLU): the tile
// lies over the columns and the output channels (dims 0 and 2), the rows over blocks.
TEST(ContractionTiles, AOneByOneConvolutionOverChannels) {
    for (auto &target : user_targets()) {
        SCOPED_TRACE(target);
        ImageParam in(Float(32), 3, "kin"), w(Float(32), 2, "kw"), bias(Float(32), 1, "kbias");
        Var x("x"), y("y"), k("k");
        RDom rc(0, in.dim(2).extent(), "rc");
        Func acc("kacc"), out("kout");
        acc(x, y, k) = bias(k);
        acc(x, y, k) += w(rc, k) * in(x, y, rc);
        out(x, y, k) = max(acc(x, y, k), 0.0f);
        in.set_estimates({{0, 512}, {0, 512}, {0, 32}});
        w.set_estimates({{0, 32}, {0, 64}});
        bias.set_estimates({{0, 64}});
        out.set_estimates({{0, 512}, {0, 512}, {0, 64}});
        std::string plan;
        Pipeline p = planned({out}, target, plan);
        for (auto [W, H, C] : kSizes) {
            SCOPED_TRACE(std::to_string(W) + "x" + std::to_string(H) + "x" + std::to_string(C));
            const int K = 67;
            auto a = random_buffer<float>({W, H, C}, 51, -1, 1), wb = random_buffer<float>({C, K}, 52, -1, 1);
            auto bb = random_buffer<float>({K}, 53, -1, 1);
            in.set(a), w.set(wb), bias.set(bb);
            Buffer<float> o = realize_on<float>(p, {W, H, K}, target);
            EXPECT_TRUE(matches(
                o,
                [&](auto &c) {
                    double s = bb(c[2]);
                    for (int i = 0; i < C; i++) s += double(wb(i, c[2])) * a(c[0], c[1], i);
                    return std::max(s, 0.0);
                },
                1e-5))
                << plan;
        }
    }
}

// Attention written with inline reductions: the scores (a contraction over the head's channels)
// are read by the softmax's row maximum, so they are not computed per block of its row kernel; the
// scaled scores are stored instead, the contraction computed 4 x 4 points per thread in their
// kernel, and the weighted values take the layout in the output's kernel.
// With a causal mask (`select(j <= t, ...)`), Halide bounds the scores' region by the mask, and
// the tile's points are split under a guard instead.
TEST(ContractionTiles, AttentionStoresItsScaledScores) {
    for (auto &target : user_targets())
        for (bool causal : {false, true}) {
            SCOPED_TRACE(target + (causal ? " causal" : ""));
            ImageParam q(Float(32), 3, "aq"), k(Float(32), 3, "ak"), v(Float(32), 3, "av");
            Var d("d"), t("t"), j("j"), h("h");
            RDom rd(0, q.dim(0).extent(), "rd"), rj(0, k.dim(1).extent(), "rj");
            Func s("as"), m("am"), e("ae"), den("aden"), out("aout");
            Expr score = sum(q(rd, t, h) * k(rd, j, h)) * 0.25f;
            s(j, t, h) = causal ? select(j <= t, score, -1e30f) : score;
            m(t, h) = maximum(s(rj, t, h));
            e(j, t, h) = exp(s(j, t, h) - m(t, h));
            den(t, h) = sum(e(rj, t, h));
            out(d, t, h) = sum(e(rj, t, h) * v(d, rj, h)) / den(t, h);
            for (ImageParam *p : {&q, &k, &v}) p->set_estimates({{0, 64}, {0, 512}, {0, 4}});
            out.set_estimates({{0, 64}, {0, 512}, {0, 4}});
            std::string plan;
            Pipeline p = planned({out}, target, plan);
            if (target != "host") {
                EXPECT_NE(
                    plan.find("[pointwise, 16 rows per block, 4 x 4 points per thread, a contraction's steps shared "
                              "by them in registers] writes as"),
                    std::string::npos)
                    << plan;
            }
            for (auto [D, T, H] : std::vector<std::array<int, 3>>{{16, 100, 2}, {3, 7, 1}, {17, 1, 3}}) {
                SCOPED_TRACE(std::to_string(D) + "x" + std::to_string(T) + "x" + std::to_string(H));
                auto qb = random_buffer<float>({D, T, H}, 61, -1, 1), kb = random_buffer<float>({D, T, H}, 62, -1, 1);
                auto vb = random_buffer<float>({D, T, H}, 63, -1, 1);
                q.set(qb), k.set(kb), v.set(vb);
                Buffer<float> o = realize_on<float>(p, {D, T, H}, target);
                EXPECT_TRUE(matches(
                    o,
                    [&](auto &c) {
                        std::vector<double> sc(size_t(T), 0.0);
                        double mx = -1e300, total = 0, acc = 0;
                        for (int jj = 0; jj < T; jj++) {
                            for (int i = 0; i < D; i++) sc[size_t(jj)] += double(qb(i, c[1], c[2])) * kb(i, jj, c[2]);
                            sc[size_t(jj)] = causal && jj > c[1] ? -1e30 : sc[size_t(jj)] * 0.25;
                            mx = std::max(mx, sc[size_t(jj)]);
                        }
                        for (int jj = 0; jj < T; jj++) {
                            const double w = std::exp(sc[size_t(jj)] - mx);
                            total += w, acc += w * vb(c[0], jj, c[2]);
                        }
                        return acc / total;
                    },
                    1e-4))
                    << plan;
            }
        }
}

// Not contractions: an operand that varies with both of the result's dims (`in(x, y, k) * w(k)`:
// no load to share), and a product whose results are fewer than a block's tile.
TEST(ContractionTiles, NotForOperandsThatVaryWithBothDimsOrFewResults) {
    for (auto &target : user_targets()) {
        SCOPED_TRACE(target);
        ImageParam in(Float(32), 3, "xin"), w(Float(32), 1, "xw");
        Var x("x"), y("y");
        RDom k(0, in.dim(2).extent(), "k");
        Func out("xout");
        out(x, y) = sum(in(x, y, k) * w(k));
        in.set_estimates({{0, 1024}, {0, 1024}, {0, 64}});
        w.set_estimates({{0, 64}});
        out.set_estimates({{0, 1024}, {0, 1024}});
        std::string plan;
        Pipeline p = planned({out}, target, plan, false);
        auto a = random_buffer<float>({37, 29, 20}, 41, -1, 1), wb = random_buffer<float>({20}, 42, -1, 1);
        in.set(a), w.set(wb);
        Buffer<float> o = realize_on<float>(p, {37, 29}, target);
        EXPECT_TRUE(matches(
            o,
            [&](auto &c) {
                double s = 0;
                for (int i = 0; i < 20; i++) s += double(a(c[0], c[1], i)) * wb(i);
                return s;
            },
            1e-5));

        ImageParam A(Float(32), 2, "sA"), B(Float(32), 2, "sB");
        RDom j(0, A.dim(0).extent(), "j");
        Func small("small");
        small(x, y) = sum(A(j, y) * B(x, j));
        A.set_estimates({{0, 256}, {0, 32}});
        B.set_estimates({{0, 32}, {0, 256}});
        small.set_estimates({{0, 32}, {0, 32}});
        planned({small}, target, plan, false);
    }
}

// A Gram matrix (256 x 256 results of 16384 products each at the estimates): too few results to
// fill the GPU with tiles alone, so the samples are summed in slices (split-K), and each slice's
// partials are computed in the contraction's tiles, 4 x 4 results per thread. Run at sizes no
// tile divides, with one sample, fewer samples than a slice, one feature.
TEST(ContractionTiles, AGramMatrixSumsItsSlicesInTiles) {
    const std::vector<std::array<int, 2>> sizes{{256, 3000}, {70, 1000}, {37, 129}, {300, 1}, {1, 65}};
    for (auto &target : user_targets()) {
        SCOPED_TRACE(target);
        ImageParam X(Float(32), 2, "gX");
        Var i("i"), j("j");
        RDom s(0, X.dim(1).extent(), "s");
        Func g("gg"), out("gout");
        g(i, j) = 0.0f;
        g(i, j) += X(i, s) * X(j, s);
        out(i, j) = g(i, j) / Halide::cast<float>(X.dim(1).extent());
        X.set_estimates({{0, 256}, {0, 16384}});
        out.set_estimates({{0, 256}, {0, 256}});
        std::string plan = schedule_with_solder({out}, target);
        EXPECT_EQ(plan.find("in contraction tiles over its dims 0 and 1") != std::string::npos, target != "host")
            << plan;
        Pipeline p = compiled({out}, target);
        for (auto [F, S] : sizes) {
            SCOPED_TRACE(std::to_string(F) + " features x " + std::to_string(S) + " samples");
            auto x = random_buffer<float>({F, S}, 51, -1, 1);
            X.set(x);
            Buffer<float> o = realize_on<float>(p, {F, F}, target);
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    double sum = 0;
                    for (int k = 0; k < S; k++) sum += double(x(q[0], k)) * x(q[1], k);
                    return sum / S;
                },
                1e-5))
                << plan;
        }
    }
}

// A 3 x 3 convolution's weight gradient (`dw(kx, ky, ci, co) += in(x + kx - 1, y + ky - 1, ci, n) *
// dout(x, y, co, n)`): a contraction over its channels in and out (dims 2 and 3), not dims 0 and
// 1, with 9 tiles of them at the estimates: split-K in tiles over dims 2 and 3, the taps loops in
// each block.
// Run at sizes no tile divides, one image, one channel, a 1 x 1 image.
// A batch of 64 Gram matrices: its tiles (16 per matrix) fill the GPU with the batch as a grid dim,
// and none is split (split-K would loop the batch in each block).
TEST(ContractionTiles, ABatchOfGramMatricesIsNotSplit) {
    ImageParam X(Float(32), 3, "bgX");
    Var i("i"), j("j"), b("b");
    RDom s(0, X.dim(1).extent(), "s");
    Func g("bgg");
    g(i, j, b) = 0.0f;
    g(i, j, b) += X(i, s, b) * X(j, s, b);
    X.set_estimates({{0, 256}, {0, 16384}, {0, 64}});
    g.set_estimates({{0, 256}, {0, 256}, {0, 64}});
    const std::string plan = schedule_with_solder({g}, "opencl");
    EXPECT_NE(plan.find(kContraction), std::string::npos) << plan;
    EXPECT_EQ(plan.find("split-K"), std::string::npos) << plan;
}

TEST(ContractionTiles, AWeightGradientOverItsChannels) {
    // (width, height, channels in, channels out, images)
    const std::vector<std::array<int, 5>> sizes{
        {20, 13, 64, 64, 2}, {9, 7, 70, 33, 3}, {5, 6, 1, 5, 1}, {1, 1, 3, 2, 4}};
    for (auto &target : user_targets()) {
        SCOPED_TRACE(target);
        ImageParam in(Float(32), 4, "win"), dout(Float(32), 4, "wdout");
        Var kx("kx"), ky("ky"), ci("ci"), co("co");
        Func pad = BoundaryConditions::constant_exterior(in, 0.0f);
        RDom r(0, dout.dim(0).extent(), 0, dout.dim(1).extent(), 0, dout.dim(3).extent(), "wr");
        Func dw("wdw");
        dw(kx, ky, ci, co) = 0.0f;
        dw(kx, ky, ci, co) += pad(r.x + kx - 1, r.y + ky - 1, ci, r.z) * dout(r.x, r.y, co, r.z);
        in.set_estimates({{0, 56}, {0, 56}, {0, 64}, {0, 8}});
        dout.set_estimates({{0, 56}, {0, 56}, {0, 64}, {0, 8}});
        dw.set_estimates({{0, 3}, {0, 3}, {0, 64}, {0, 64}});
        std::string plan = schedule_with_solder({dw}, target);
        EXPECT_EQ(plan.find("in contraction tiles over its dims 2 and 3") != std::string::npos, target != "host")
            << plan;
        // Its root adds the partials with its dims but the last fused along the threads: along
        // its 3 taps alone, 253 of 256 threads would idle.
        EXPECT_EQ(plan.find("its dims but the last fused along 256 threads") != std::string::npos, target != "host")
            << plan;
        Pipeline p = compiled({dw}, target);
        for (auto [W, H, CI, CO, N] : sizes) {
            SCOPED_TRACE(std::to_string(W) + "x" + std::to_string(H) + "x" + std::to_string(CI) + "x" +
                         std::to_string(CO) + "x" + std::to_string(N));
            auto a = random_buffer<float>({W, H, CI, N}, 61, -1, 1), d = random_buffer<float>({W, H, CO, N}, 62, -1, 1);
            in.set(a), dout.set(d);
            Buffer<float> o = realize_on<float>(p, {3, 3, CI, CO}, target);
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    double s = 0;
                    for (int n = 0; n < N; n++)
                        for (int y = 0; y < H; y++)
                            for (int x = 0; x < W; x++) {
                                const int sx = x + q[0] - 1, sy = y + q[1] - 1;
                                if (sx < 0 || sy < 0 || sx >= W || sy >= H) continue;
                                s += double(a(sx, sy, q[2], n)) * d(x, y, q[3], n);
                            }
                    return s;
                },
                1e-5))
                << plan;
        }
    }
}

// A linear layer's weight gradient written with an inline sum (`dw(i, o) = sum(x(i, n) * dy(o, n))`:
// the root a pure copy of the contraction): 512 x 512 results of 8192 steps are 64 tiles, too few
// for the SMs in the root's kernel, so the contraction is stored and summed in slices of its tiles.
TEST(ContractionTiles, AWeightGradientWrittenWithAnInlineSumStoresItsContraction) {
    const std::vector<std::array<int, 3>> sizes{{512, 512, 1500}, {70, 33, 129}, {5, 3, 1}};
    for (auto &target : user_targets()) {
        SCOPED_TRACE(target);
        ImageParam X(Float(32), 2, "lx"), DY(Float(32), 2, "ldy");
        Var i("i"), o("o");
        RDom n(0, X.dim(1).extent(), "ln");
        Func dw("ldw");
        dw(i, o) = sum(X(i, n) * DY(o, n));
        X.set_estimates({{0, 512}, {0, 8192}});
        DY.set_estimates({{0, 512}, {0, 8192}});
        dw.set_estimates({{0, 512}, {0, 512}});
        std::string plan = schedule_with_solder({dw}, target);
        EXPECT_EQ(plan.find("in contraction tiles over its dims 0 and 1") != std::string::npos, target != "host")
            << plan;
        Pipeline p = compiled({dw}, target);
        for (auto [I, O, N] : sizes) {
            SCOPED_TRACE(std::to_string(I) + "x" + std::to_string(O) + "x" + std::to_string(N));
            auto x = random_buffer<float>({I, N}, 71, -1, 1), d = random_buffer<float>({O, N}, 72, -1, 1);
            X.set(x), DY.set(d);
            Buffer<float> out = realize_on<float>(p, {I, O}, target);
            EXPECT_TRUE(matches(
                out,
                [&](auto &q) {
                    double s = 0;
                    for (int k = 0; k < N; k++) s += double(x(q[0], k)) * d(q[1], k);
                    return s;
                },
                1e-4))  // (a float sum of 1500 products in any order)
                << plan;
        }
    }
}
