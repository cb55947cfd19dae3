// Reductions to one result over a volume whose outermost RVar has few steps (16 planes of 512 x
// 512, a channels-last batch of 2, a 4-D block of 64^4): the total reduction template cuts an RVar
// inside the outermost into slices where the outermost has too few steps to fill the device, each
// slice walking the RVars outside the cut as well; the partials keep one slice dim. (Two ways
// tried before gave wrong sums: the outer RVars fused into one walk doubled the channels-last sum,
// Halide bounding a block's lane partials over two slices through the fused index; and a slice dim
// per RVar, fused again by the block reductions, came out short at small sizes.) Planned at the
// estimates, run on the host and OpenCL at other sizes (a plane count from a scalar parameter, 0
// among them), against plain C++; lowered for CUDA.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "tests/support/user_pipeline.h"

using namespace Halide;
using namespace solder::testing;

namespace total_reductions {

TEST(TotalReductions, AVolumeWithFewPlanesIsSlicedAcrossPlanesAndRows) {
    for (const std::string &target : {std::string("host"), std::string("opencl"), std::string("cuda")}) {
        SCOPED_TRACE("target " + target);
        ImageParam vol(Float(32), 3, "vol"), block(Int(32), 4, "block"), chlast(Float(32), 4, "chlast");
        Param<int> planes("planes");
        RDom r(0, vol.dim(0).extent(), 0, vol.dim(1).extent(), 0, planes, "r");
        RDom q(0, block.dim(0).extent(), 0, block.dim(1).extent(), 0, block.dim(2).extent(), 0, block.dim(3).extent(),
               "q");
        // (chlast is (c, w, h, n); its RDom walks w, h, c, n: the RVars cut into slices index its
        // innermost dim and its outermost.)
        RDom k(0, chlast.dim(1).extent(), 0, chlast.dim(2).extent(), 0, chlast.dim(0).extent(), 0,
               chlast.dim(3).extent(), "k");
        Func mean("mean"), peak("peak"), total("total");
        total() = sum(cast<double>(abs(chlast(k[2], k[0], k[1], k[3]))));
        mean() = sum(vol(r.x, r.y, r.z)) / cast<float>(max(1, vol.dim(0).extent() * vol.dim(1).extent() * planes));
        peak() = maximum(block(q.x, q.y, q.z, q.w));
        vol.set_estimates({{0, 512}, {0, 512}, {0, 16}});
        planes.set_estimate(16);
        block.set_estimates({{0, 64}, {0, 64}, {0, 64}, {0, 64}});
        chlast.set_estimates({{0, 16}, {0, 256}, {0, 256}, {0, 2}});
        const std::string plan = schedule_with_solder({mean, peak, total}, target);
        if (target != "host") {
            // The volume's mean and the channels-last total cut their rows and fill the device (no
            // fewer slices than its SMs); the 4-D block, whose every RVar has 64 steps, takes 64 slices
            // of one step of its outermost (one RVar is cut: its slice dim is one).
            for (const std::string root : {"k0_sum", "k4_sum"}) {
                const size_t at = plan.find("[total_reduction, ", plan.find("  " + root));
                ASSERT_NE(at, std::string::npos) << plan;
                EXPECT_GE(std::stoll(plan.substr(at + 18)), 132) << plan;
                EXPECT_LT(plan.find("(the outermost has fewer; each slice walks the RVars outside it too)", at),
                          plan.find("\n", at))
                    << plan;
            }
            EXPECT_NE(plan.find("[total_reduction, 64 slices of 1 steps of the outermost RVar"), std::string::npos)
                << plan;
        }
        if (target == "cuda") {
            EXPECT_NO_THROW(lower_for_cuda({mean, peak, total}, "fused_walks"));
            continue;
        }
        Pipeline p({mean, peak, total});
        p.compile_jit(solder::make_target(target));
        for (auto [w, h, d, n] : std::vector<std::tuple<int, int, int, int>>{
                 {512, 512, 16, 16}, {37, 29, 5, 3}, {1, 1, 1, 1}, {300, 7, 9, 0}}) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + "x" + std::to_string(d) + ", planes " +
                         std::to_string(n));
            Buffer<float> vb = random_buffer<float>({w, h, d}, uint32_t(w + n), 0, 1);
            Buffer<int32_t> bb = random_buffer<int32_t>({w % 61 + 1, h % 13 + 2, d, n + 1}, uint32_t(h), -5000, 5000);
            Buffer<float> cb = random_buffer<float>({d + 1, w % 53 + 1, h % 17 + 1, n + 1}, uint32_t(d), -1, 1);
            vol.set(vb);
            block.set(bb);
            chlast.set(cb);
            planes.set(n);
            Buffer<float> m = Buffer<float>::make_scalar();
            Buffer<int32_t> k = Buffer<int32_t>::make_scalar();
            Buffer<double> t = Buffer<double>::make_scalar();
            p.realize({m, k, t}, solder::make_target(target));
            m.copy_to_host();
            k.copy_to_host();
            t.copy_to_host();
            double want_total = 0;
            cb.for_each_value([&](float v) { want_total += std::abs(double(v)); });
            EXPECT_NEAR(t(), want_total, 1e-9 * (1 + want_total)) << plan;
            double want = 0;
            for (int z = 0; z < n; z++)
                for (int y = 0; y < h; y++)
                    for (int x = 0; x < w; x++) want += vb(x, y, z);
            want /= std::max(1.0, double(w) * h * n);
            int32_t want_peak = INT32_MIN;
            bb.for_each_value([&](int32_t v) { want_peak = std::max(want_peak, v); });
            EXPECT_NEAR(m(), want, 1e-4) << plan;  // (4M float adds in one thread on the host)
            EXPECT_EQ(k(), want_peak) << plan;
        }
    }
}

}  // namespace total_reductions

namespace total_reductions {

// Channel means of a channels-last batch (c, w, h, n), 16 results read along the input's innermost
// dim: the lane-results layout (threads along the channels, then lanes of the width) cuts its rows
// into slices where the batch, its outermost RVar, has 2 steps (2 slices before). Run on the host
// and OpenCL at other sizes (a batch of 1, one row, one point), against plain C++.
TEST(TotalReductions, ChannelMeansOfASmallBatchAreSlicedAcrossRows) {
    for (const std::string &target : {std::string("host"), std::string("opencl"), std::string("cuda")}) {
        SCOPED_TRACE("target " + target);
        ImageParam in(Float(32), 4, "nhwc");
        Var c("c");
        RDom r(0, in.dim(1).extent(), 0, in.dim(2).extent(), 0, in.dim(3).extent(), "r");
        Func means("means");
        means(c) =
            sum(in(c, r.x, r.y, r.z)) / cast<float>(in.dim(1).extent() * in.dim(2).extent() * in.dim(3).extent());
        in.set_estimates({{0, 16}, {0, 256}, {0, 256}, {0, 2}});
        means.set_estimates({{0, 16}});
        const std::string plan = schedule_with_solder({means}, target);
        if (target != "host") {
            const size_t at = plan.find("[total_reduction, ");
            ASSERT_NE(at, std::string::npos) << plan;
            EXPECT_GE(std::stoll(plan.substr(at + 18)), 32) << plan;
            EXPECT_NE(plan.find("steps of its RVar r$y (the outermost has fewer"), std::string::npos) << plan;
            EXPECT_NE(plan.find("threads along the results"), std::string::npos) << plan;
        }
        if (target == "cuda") {
            EXPECT_NO_THROW(lower_for_cuda({means}, "channel_means_of_a_batch"));
            continue;
        }
        Pipeline p(means);
        p.compile_jit(solder::make_target(target));
        for (auto [cs, w, h, n] : std::vector<std::tuple<int, int, int, int>>{
                 {16, 256, 256, 2}, {16, 37, 29, 1}, {16, 300, 1, 3}, {16, 1, 1, 1}}) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + "x" + std::to_string(n));
            Buffer<float> b = random_buffer<float>({cs, w, h, n}, uint32_t(w + h + n), -1, 1);
            in.set(b);
            Buffer<float> got = realize_on<float>(p, {cs}, target);
            for (int ch = 0; ch < cs; ch++) {
                double want = 0;
                for (int z = 0; z < n; z++)
                    for (int y = 0; y < h; y++)
                        for (int x = 0; x < w; x++) want += b(ch, x, y, z);
                want /= double(w) * h * n;
                EXPECT_NEAR(got(ch), want, 1e-5) << "channel " << ch << "\n" << plan;
            }
        }
    }
}

// The mean of a map computed from windowed sums (SSIM's five separable blurs of inline sums, the
// map a pure Func of those): the map is stored, its kernel the stencil tiles that compute the
// blurs per tile, and the mean's sum a total reduction over it. As one 0-d kernel the whole
// pipeline would run in one thread; storing the nearest windowed sum instead left the search far
// from the map's tiles. Planned and lowered for CUDA; the same shape with two blurs (a local
// variance map's mean; PoCL takes minutes to compile SSIM's tiles) run on the host and OpenCL at
// sizes from 70 x 50 to 6 x 64 against plain C++.
TEST(TotalReductions, TheMeanOfAMapOfWindowedSumsStoresTheMap) {
    auto mirror = [](int x, int n) {
        const int m = 2 * (n - 1);
        int t = ((x % m) + m) % m;
        return t >= n ? m - t : t;
    };
    for (const std::string &target : {std::string("host"), std::string("opencl"), std::string("cuda")}) {
        SCOPED_TRACE("target " + target);
        // (An 11-tap window where the plan is only lowered, 5 taps where it runs.)
        const int radius = target == "cuda" ? 5 : 2;
        float norm = 0.0f;
        for (int k = -radius; k <= radius; k++) norm += std::exp(-float(k * k) / 4.5f);
        ImageParam a(Float(32), 2, "lv_a");
        Var x("x"), y("y"), t("t");
        Func ca = BoundaryConditions::mirror_interior(a);
        Func w("lv_w");
        w(t) = exp(-cast<float>(t * t) / 4.5f) / norm;
        RDom k(-radius, 2 * radius + 1, "k");
        auto blur = [&](Func f, const std::string &name) {
            Func bx(name + "_x"), by(name);
            bx(x, y) = sum(f(x + k, y) * w(k));
            by(x, y) = sum(bx(x, y + k) * w(k));
            return by;
        };
        Func aa("lv_aa");
        aa(x, y) = ca(x, y) * ca(x, y);
        Func mu = blur(ca, "lv_mu"), e_aa = blur(aa, "lv_e_aa");
        Func map("lv_map"), mean("lv_mean");
        if (target == "cuda") {
            // SSIM's five blurs (two images' means and mean squares, their mean product), each of
            // 11 taps: the shape whose search stopped far from the map's tiles.
            ImageParam b(Float(32), 2, "lv_b");
            Func cb = BoundaryConditions::mirror_interior(b);
            Func bb("lv_bb"), ab("lv_ab");
            bb(x, y) = cb(x, y) * cb(x, y);
            ab(x, y) = ca(x, y) * cb(x, y);
            Func mu_b = blur(cb, "lv_mu_b"), e_bb = blur(bb, "lv_e_bb"), e_ab = blur(ab, "lv_e_ab");
            Expr ma = mu(x, y), mb = mu_b(x, y);
            Expr va = e_aa(x, y) - ma * ma, vb = e_bb(x, y) - mb * mb, cov = e_ab(x, y) - ma * mb;
            map(x, y) =
                ((2.0f * ma * mb + 1e-4f) * (2.0f * cov + 9e-4f)) / ((ma * ma + mb * mb + 1e-4f) * (va + vb + 9e-4f));
            b.set_estimates({{0, 2048}, {0, 2048}});
        } else {
            map(x, y) = sqrt(max(e_aa(x, y) - mu(x, y) * mu(x, y), 0.0f) + 1e-4f);
        }
        RDom r(0, a.dim(0).extent(), 0, a.dim(1).extent(), "r");
        mean() = sum(map(r.x, r.y)) / cast<float>(a.dim(0).extent() * a.dim(1).extent());
        a.set_estimates({{0, 2048}, {0, 2048}});
        const std::string plan = schedule_with_solder({mean}, target);
        if (target != "host") {
            EXPECT_NE(plan.find("[stencil_tile"), std::string::npos) << plan;
            EXPECT_NE(plan.find("writes " + map.name() + ":"), std::string::npos) << plan;
            EXPECT_NE(plan.find("[total_reduction"), std::string::npos) << plan;
        }
        if (target == "cuda") {
            EXPECT_NO_THROW(lower_for_cuda({mean}, "ssim_mean"));
            continue;
        }
        Pipeline p(mean);
        p.compile_jit(solder::make_target(target));
        for (auto [wd, ht] : std::vector<std::pair<int, int>>{{70, 50}, {23, 17}, {6, 64}}) {
            SCOPED_TRACE(std::to_string(wd) + "x" + std::to_string(ht));
            Buffer<float> ia = random_buffer<float>({wd, ht}, uint32_t(wd), 0, 1);
            a.set(ia);
            Buffer<float> got = realize_on<float>(p, {}, target);
            std::vector<double> wt(size_t(2 * radius + 1));
            for (int j = -radius; j <= radius; j++) wt[size_t(j + radius)] = std::exp(-double(j * j) / 4.5) / norm;
            double total = 0;
            for (int j = 0; j < ht; j++)
                for (int i = 0; i < wd; i++) {
                    double m1 = 0, m2 = 0;
                    for (int v = -radius; v <= radius; v++)
                        for (int u = -radius; u <= radius; u++) {
                            const double pa = ia(mirror(i + u, wd), mirror(j + v, ht));
                            const double wuv = wt[size_t(u + radius)] * wt[size_t(v + radius)];
                            m1 += wuv * pa, m2 += wuv * pa * pa;
                        }
                    total += std::sqrt(std::max(m2 - m1 * m1, 0.0) + 1e-4);
                }
            EXPECT_NEAR(got(), total / (double(wd) * ht), 1e-4) << plan;
        }
    }
}

}  // namespace total_reductions
