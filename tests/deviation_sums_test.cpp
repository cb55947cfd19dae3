// One-pass deviations (autosched/deviation_sums.h, `--enable one_pass_deviations`): a variance
// written as users write it, the mean's sum and then the squared deviations from the mean, summed
// in chunks and merged. The results must be the two-pass sums' up to rounding, at the estimates
// and at other sizes (chunks of one point, one chunk), on OpenCL where the rewrite is taken,
// against plain C++ in double precision; and the rewrite must not be taken where the deviations
// are not from a mean of the same points.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "tests/support/user_pipeline.h"

using namespace Halide;
using namespace solder::testing;

namespace deviation_sums {

solder::autosched::PlannerOptions one_pass() {
    solder::autosched::PlannerOptions o;
    o.one_pass_deviations = true;
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
        x.set_estimates({{0, 64}, {0, 48}, {0, 8}, {0, 3}});
        groups.set_estimate(2);
        stats.set_estimates({{0, 2}, {0, 3}});
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
        Realization out = pipe.realize({G, s}, make_target("opencl"));
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

// An image's mean and variance (0-d outputs), with the image's own statistics normalizing it.
TEST(DeviationSums, AnImagesVarianceMatchesTwoPassesAtAnySize) {
    ImageParam in(Float(32), 2, "in");
    Var x("x"), y("y");
    RDom r(0, in.dim(0).extent(), 0, in.dim(1).extent(), "r");
    Expr count = cast<float>(in.dim(0).extent() * in.dim(1).extent());
    Func mean("mean"), var("var"), out("out");
    mean() = sum(in(r.x, r.y)) / count;
    var() = sum((mean() - in(r.x, r.y)) * (mean() - in(r.x, r.y))) / count;
    out(x, y) = (in(x, y) - mean()) / sqrt(var() + 1e-5f);
    in.set_estimates({{0, 512}, {0, 384}});
    out.set_estimates({{0, 512}, {0, 384}});
    const std::string plan = schedule_with_solder({out}, "opencl", one_pass());
    ASSERT_TRUE(rewritten(plan)) << plan;
    Pipeline pipe = compiled({out}, "opencl");
    for (auto [w, h] : std::vector<std::pair<int, int>>{{512, 384}, {37, 29}, {517, 1}, {1, 1}}) {
        SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
        Buffer<float> b(w, h);
        std::mt19937 rng(uint32_t(w + 7 * h));
        std::uniform_real_distribution<float> u(90.0f, 110.0f);
        b.for_each_value([&](float &v) { v = u(rng); });
        b.set_host_dirty();
        in.set(b);
        Buffer<float> o = realize_on<float>(pipe, {w, h}, "opencl");
        double mu = 0, m2 = 0;
        b.for_each_value([&](float v) { mu += v; });
        mu /= double(w) * h;
        b.for_each_value([&](float v) { m2 += (v - mu) * (v - mu); });
        const double sd = std::sqrt(m2 / (double(w) * h) + 1e-5);
        for (int j = 0; j < h; j++)
            for (int i = 0; i < w; i++) ASSERT_NEAR(o(i, j), (b(i, j) - mu) / sd, 2e-3) << i << ", " << j;
    }
}

TEST(DeviationSums, NotTakenForDeviationsFromAnotherValueOrWhenOff) {
    {
        GroupStats p(/*from_mean=*/false);
        EXPECT_FALSE(rewritten(schedule_with_solder({p.stats}, "opencl", one_pass())));
    }
    {
        GroupStats p;
        EXPECT_FALSE(rewritten(schedule_with_solder({p.stats}, "opencl")));
    }
    {
        GroupStats p;
        EXPECT_FALSE(rewritten(schedule_with_solder({p.stats}, "host", one_pass())));
    }
}

}  // namespace deviation_sums
