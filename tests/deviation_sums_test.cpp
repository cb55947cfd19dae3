// One-pass deviations (autosched/deviation_sums.h, the one_pass_deviations knob): a variance
// written as users write it, the mean's sum and then the squared deviations from the mean, summed
// in chunks and merged. Planned at a network's sizes, run at small ones: the results must be the
// two-pass sums' up to rounding at any size (chunks of one point, one chunk, odd extents), on
// OpenCL where the rewrite is taken, against plain C++ in double precision, with values far from
// zero so that the shift matters; and the rewrite must not be taken where the deviations are not
// from a mean of the same points, in float16, where each result sums few points (a block holds
// them), where the chunks would be too few to fill a GPU, on the host, or with the knob off.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "tests/support/user_pipeline.h"

using namespace Halide;
using namespace solder::testing;

namespace deviation_sums {

solder::autosched::PlannerOptions one_pass(bool on = true) {
    solder::autosched::PlannerOptions o;
    o.one_pass_deviations = on;
    return o;
}

bool rewritten(const std::string &plan) { return plan.find("summed in chunks") != std::string::npos; }

// Group normalization's statistics over (w, h, channels of a group) per (group, sample).
struct GroupStats {
    ImageParam x{Float(32), 4, "x"};
    Param<int> groups{"groups", 2};
    Var g{"g"}, n{"n"};
    Func mean{"mean"}, var{"var"}, stats{"stats"};
    explicit GroupStats(bool from_mean = true) {
        Expr cpg = x.dim(2).extent() / groups;
        RDom r(0, x.dim(0).extent(), 0, x.dim(1).extent(), 0, cpg, "r");
        Expr count = cast<float>(x.dim(0).extent() * x.dim(1).extent() * cpg);
        Expr v = x(r.x, r.y, g * cpg + r.z, n);
        mean(g, n) = sum(v) / count;
        Expr d = v - (from_mean ? Expr(mean(g, n)) : Expr(1.5f));
        var(g, n) = sum(d * d) / count;
        stats(g, n) = Tuple(mean(g, n), var(g, n));
        x.set_estimates({{0, 256}, {0, 64}, {0, 64}, {0, 16}});
        groups.set_estimate(2);
        stats.set_estimates({{0, 2}, {0, 16}});
    }
};

TEST(DeviationSums, AGroupsVarianceMatchesTwoPassesAtAnySize) {
    GroupStats p;
    const std::string plan = schedule_with_solder({p.stats}, "opencl", one_pass());
    ASSERT_TRUE(rewritten(plan)) << plan;
    Pipeline pipe = compiled({p.stats}, "opencl");
    // (w, h, channels, samples): the estimates, odd sizes, one row per chunk walk, one point.
    for (auto [w, h, c, s] :
         std::vector<std::array<int, 4>>{{64, 48, 8, 3}, {37, 29, 6, 2}, {5, 1, 4, 1}, {1, 1, 2, 1}}) {
        SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + "x" + std::to_string(c) + "x" + std::to_string(s));
        Buffer<float> in(w, h, c, s);
        std::mt19937 rng(uint32_t(w * 131 + h));
        std::normal_distribution<float> normal(0.0f, 2.0f);
        // An offset far from zero, so that the deviations' base matters.
        in.for_each_value([&](float &v) { v = 40.0f + normal(rng); });
        in.set_host_dirty();
        p.x.set(in);
        const int G = 2, cpg = c / G;
        Realization out = pipe.realize({G, s}, solder::make_target("opencl"));
        Buffer<float> mean = out[0], var = out[1];
        mean.copy_to_host();
        var.copy_to_host();
        for (int n = 0; n < s; n++)
            for (int g = 0; g < G; g++) {
                double mu = 0, m2 = 0, count = double(w) * h * cpg;
                for (int k = 0; k < cpg; k++)
                    for (int y = 0; y < h; y++)
                        for (int x = 0; x < w; x++) mu += in(x, y, g * cpg + k, n);
                mu /= count;
                for (int k = 0; k < cpg; k++)
                    for (int y = 0; y < h; y++)
                        for (int x = 0; x < w; x++) m2 += std::pow(in(x, y, g * cpg + k, n) - mu, 2);
                EXPECT_NEAR(mean(g, n), mu, 1e-4 * std::abs(mu)) << "g " << g << " n " << n;
                EXPECT_NEAR(var(g, n), m2 / count, 1e-3 * (m2 / count) + 1e-6) << "g " << g << " n " << n;
            }
    }
}

// A batch normalization's per-channel statistics over (x, y, sample), the deviations written
// mean first (m - e), and the activations normalized by them.
TEST(DeviationSums, ABatchNormMatchesTwoPassesAtAnySize) {
    ImageParam in(Float(32), 4, "in");
    Var x("x"), y("y"), c("c"), n("n");
    RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), 0, in.dim(3).extent(), "r");
    Expr count = cast<float>(in.dim(0).extent() * in.dim(1).extent() * in.dim(3).extent());
    Func mean("mean"), var("var"), out("out");
    mean(c) = sum(in(r.x, r.y, c, r.z)) / count;
    var(c) = sum((mean(c) - in(r.x, r.y, c, r.z)) * (mean(c) - in(r.x, r.y, c, r.z))) / count;
    out(x, y, c, n) = (in(x, y, c, n) - mean(c)) / sqrt(var(c) + 1e-5f);
    in.set_estimates({{0, 256}, {0, 128}, {0, 64}, {0, 16}});
    out.set_estimates({{0, 256}, {0, 128}, {0, 64}, {0, 16}});
    const std::string plan = schedule_with_solder({out}, "opencl", one_pass());
    ASSERT_TRUE(rewritten(plan)) << plan;
    Pipeline pipe = compiled({out}, "opencl");
    for (auto [w, h, ch, s] : std::vector<std::array<int, 4>>{{40, 24, 3, 2}, {17, 1, 2, 3}, {1, 1, 1, 1}}) {
        SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + "x" + std::to_string(ch) + "x" + std::to_string(s));
        Buffer<float> b(w, h, ch, s);
        std::mt19937 rng(uint32_t(w + 7 * h + 31 * s));
        std::uniform_real_distribution<float> u(90.0f, 110.0f);
        b.for_each_value([&](float &v) { v = u(rng); });
        b.set_host_dirty();
        in.set(b);
        Buffer<float> o = pipe.realize({w, h, ch, s}, solder::make_target("opencl"));
        o.copy_to_host();
        for (int k = 0; k < ch; k++) {
            double mu = 0, m2 = 0, points = double(w) * h * s;
            for (int m = 0; m < s; m++)
                for (int j = 0; j < h; j++)
                    for (int i = 0; i < w; i++) mu += b(i, j, k, m);
            mu /= points;
            for (int m = 0; m < s; m++)
                for (int j = 0; j < h; j++)
                    for (int i = 0; i < w; i++) m2 += (b(i, j, k, m) - mu) * (b(i, j, k, m) - mu);
            const double sd = std::sqrt(m2 / points + 1e-5);
            for (int m = 0; m < s; m++)
                for (int j = 0; j < h; j++)
                    for (int i = 0; i < w; i++)
                        ASSERT_NEAR(o(i, j, k, m), (b(i, j, k, m) - mu) / sd, 2e-3) << i << ", " << j << ", " << k;
        }
    }
}

// A whole image's mean and variance (one result over 4096 x 4096 points at the estimates): its
// second RVar is too long for one chunk, so it is split into chunks of 64 rows, and run at sizes
// whose last chunk is partial, one row, a single chunk and one point. The values drift down the
// columns, so that a shift from any point but the chunk's own would cancel badly.
// A whole image's mean and variance as 0-d Funcs, the input estimated at 4096 x 4096.
struct ImageStats {
    ImageParam in{Float(32), 2, "in"};
    Func mean{"mean"}, var{"var"};
    ImageStats() {
        RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
        Expr n = cast<float>(in.dim(0).extent() * in.dim(1).extent());
        mean() = sum(in(r.x, r.y)) / n;
        var() = sum((in(r.x, r.y) - mean()) * (in(r.x, r.y) - mean())) / n;
        in.set_estimates({{0, 4096}, {0, 4096}});
    }
};

TEST(DeviationSums, AWholeImagesVarianceInPartialChunksMatchesAtAnySize) {
    ImageStats p;
    ImageParam &in = p.in;
    Func stats("stats");
    stats() = Tuple(p.mean(), p.var());
    const std::string plan = schedule_with_solder({stats}, "opencl", one_pass());
    ASSERT_TRUE(rewritten(plan)) << plan;
    ASSERT_NE(plan.find("of 64 points, the last partial"), std::string::npos) << plan;
    Pipeline pipe = compiled({stats}, "opencl");
    for (auto [w, h] : std::vector<std::array<int, 2>>{{300, 517}, {64, 128}, {33, 1}, {3, 129}, {1, 1}}) {
        SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
        Buffer<float> b(w, h);
        std::mt19937 rng(uint32_t(w * 17 + h));
        std::uniform_real_distribution<float> u(-0.5f, 0.5f);
        b.for_each_element([&](int i, int j) { b(i, j) = 50.0f + 0.25f * float(j) + u(rng); });
        b.set_host_dirty();
        in.set(b);
        Realization out = pipe.realize(std::vector<int32_t>{}, solder::make_target("opencl"));
        Buffer<float> m = out[0], v = out[1];
        m.copy_to_host();
        v.copy_to_host();
        double mu = 0, m2 = 0, points = double(w) * h;
        b.for_each_value([&](float e) { mu += e; });
        mu /= points;
        b.for_each_value([&](float e) { m2 += (e - mu) * (e - mu); });
        EXPECT_NEAR(m(), mu, 1e-4 * std::abs(mu));
        EXPECT_NEAR(v(), m2 / points, 1e-3 * (m2 / points) + 1e-6);
    }
}

// The image normalized by those statistics, planned for CUDA: the merges are total reductions of
// 262144 chunks, 3 MB, which fit in L2. Computed per block of the output's kernel, every one of
// its blocks would read them all again from L2 (the cost model's L2 term), so they are kernels of
// their own.
TEST(DeviationSums, MergesAreNotRecomputedInEveryBlockOfTheirReader) {
    ImageStats p;
    Var x("x"), y("y");
    Func out("out");
    out(x, y) = (p.in(x, y) - p.mean()) / sqrt(p.var() + 1e-5f);
    out.set_estimates({{0, 4096}, {0, 4096}});
    const std::string plan = schedule_with_solder({out}, "cuda", one_pass());
    ASSERT_TRUE(rewritten(plan)) << plan;
    EXPECT_EQ(plan.find("computed per block"), std::string::npos) << plan;
}

TEST(DeviationSums, NotTakenForOtherDeviationsFloat16FewPointsFewChunksOnTheHostOrOff) {
    {
        GroupStats p(/*from_mean=*/false);
        EXPECT_FALSE(rewritten(schedule_with_solder({p.stats}, "opencl", one_pass())));
    }
    {
        GroupStats p;
        EXPECT_FALSE(rewritten(schedule_with_solder({p.stats}, "opencl", one_pass(false))));
    }
    {
        // The same statistics summed in float16.
        ImageParam in(Float(16), 3, "in");
        Var c("c");
        RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
        Func mean("mean"), var("var");
        mean(c) = sum(in(r.x, r.y, c)) / float16_t(4096.0f);
        var(c) = sum((in(r.x, r.y, c) - mean(c)) * (in(r.x, r.y, c) - mean(c)));
        in.set_estimates({{0, 1024}, {0, 128}, {0, 1024}});
        var.set_estimates({{0, 1024}});
        EXPECT_FALSE(rewritten(schedule_with_solder({var}, "opencl", one_pass())));
        // (In float32 the same shape is taken: the case above fails for its type alone.)
        ImageParam in32(Float(32), 3, "in32");
        RDom r32(0, in32.dim(0).extent(), 0, in32.dim(1).extent(), "r32");
        Func mean32("mean32"), var32("var32");
        mean32(c) = sum(in32(r32.x, r32.y, c)) / 4096.0f;
        var32(c) = sum((in32(r32.x, r32.y, c) - mean32(c)) * (in32(r32.x, r32.y, c) - mean32(c)));
        in32.set_estimates({{0, 1024}, {0, 128}, {0, 1024}});
        var32.set_estimates({{0, 1024}});
        EXPECT_TRUE(rewritten(schedule_with_solder({var32}, "opencl", one_pass())));
    }
    {
        // 16 x 16 tiles' statistics: 256 points a result.
        ImageParam in(Float(32), 2, "in");
        Var tx("tx"), ty("ty");
        RDom t(0, 16, 0, 16, "t");
        Func mean("mean"), var("var");
        Expr v = in(tx * 16 + t.x, ty * 16 + t.y);
        mean(tx, ty) = sum(v) / 256.0f;
        var(tx, ty) = sum((v - mean(tx, ty)) * (v - mean(tx, ty)));
        var.set_estimates({{0, 1024}, {0, 1024}});
        in.set_estimates({{0, 16384}, {0, 16384}});
        EXPECT_FALSE(rewritten(schedule_with_solder({var}, "opencl", one_pass())));
    }
    {
        GroupStats p;
        EXPECT_FALSE(rewritten(schedule_with_solder({p.stats}, "host", one_pass())));
    }
    {
        // An image's one mean and variance: a chunk per column, 512 in all.
        ImageParam in(Float(32), 2, "in");
        RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
        Func mean("mean"), var("var");
        mean() = sum(in(r.x, r.y)) / 1000.0f;
        var() = sum((in(r.x, r.y) - mean()) * (in(r.x, r.y) - mean()));
        in.set_estimates({{0, 512}, {0, 128}});
        EXPECT_FALSE(rewritten(schedule_with_solder({var}, "opencl", one_pass())));
    }
}

}  // namespace deviation_sums
