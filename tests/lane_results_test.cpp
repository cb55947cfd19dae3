// Reductions to a few results over a whole image, the results read along the input's innermost
// dim (the channel means and the colour covariance of an interleaved image): the total reduction
// template lays its threads along the results and then the innermost RVar, so that a warp reads
// contiguous elements. Planned at the estimates, run on the host and OpenCL at other sizes, with
// more channels than estimated, and over a 1-D RDom, against a plain C++ reference; lowered for
// CUDA.
#include <gtest/gtest.h>

#include <vector>

#include "tests/support/user_pipeline.h"

using namespace Halide;
using namespace solder::testing;

// The 3 x 3 covariance of an interleaved image's colours: the channel means, then the mean
// product of the deviations (two whole-image reductions, each to at most 9 results).
TEST(LaneResults, CovarianceOfAnInterleavedImage) {
    for (const std::string &target : {std::string("host"), std::string("opencl"), std::string("cuda")}) {
        SCOPED_TRACE("target " + target);
        ImageParam in(Float(32), 3, "in");
        Var c("c"), a("a"), b("b");
        Expr n = cast<float>(in.dim(1).extent() * in.dim(2).extent());
        RDom r(0, in.dim(1).extent(), 0, in.dim(2).extent(), "r");
        Func mean("mean"), cov("cov");
        mean(c) = sum(in(c, r.x, r.y)) / n;
        cov(a, b) = sum((in(a, r.x, r.y) - mean(a)) * (in(b, r.x, r.y) - mean(b))) / n;
        in.set_estimates({{0, 3}, {0, 1920}, {0, 1080}});
        cov.set_estimates({{0, 3}, {0, 3}});
        const std::string plan = schedule_with_solder({cov}, target);
        if (target != "host") {
            EXPECT_NE(plan.find("threads along the results"), std::string::npos) << plan;
        }
        if (target == "cuda") {  // lowered only: Halide accepts the CUDA schedule
            EXPECT_NO_THROW(Pipeline(cov).compile_to_lowered_stmt(::testing::TempDir() + "/cov.stmt", {in}, Text,
                                                                  solder::make_target("cuda")));
            continue;
        }
        Pipeline p(cov);
        p.compile_jit(solder::make_target(target));
        // (channels, width, height): the estimates' shape, others, more channels than planned for.
        for (auto [ch, w, h] :
             std::vector<std::tuple<int, int, int>>{{3, 640, 360}, {3, 37, 29}, {3, 1, 1}, {5, 129, 67}, {1, 300, 2}}) {
            SCOPED_TRACE(std::to_string(ch) + "x" + std::to_string(w) + "x" + std::to_string(h));
            Buffer<float> img = random_buffer<float>({ch, w, h}, 11, 0, 1);
            in.set(img);
            Buffer<float> o = realize_on<float>(p, {ch, ch}, target);
            std::vector<double> m(size_t(ch), 0.0);
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++)
                    for (int k = 0; k < ch; k++) m[size_t(k)] += img(k, x, y);
            for (double &v : m) v /= double(w) * h;
            std::vector<double> want(size_t(ch * ch), 0.0);
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++)
                    for (int j = 0; j < ch; j++)
                        for (int i = 0; i < ch; i++)
                            want[size_t(j * ch + i)] += (img(i, x, y) - m[size_t(i)]) * (img(j, x, y) - m[size_t(j)]);
            for (double &v : want) v /= double(w) * h;
            EXPECT_TRUE(matches(
                o, [&](auto &q) { return want[size_t(q[1] * ch + q[0])]; }, 1e-4))
                << plan;
        }
    }
}

// The sums of 4 interleaved channels over a 1-D RDom of a million points (the lanes' walk is the
// RDom's outer part, cut into slices), and an int maximum beside it.
TEST(LaneResults, ChannelSumsOverAOneDimensionalRDom) {
    for (const std::string &target : {std::string("host"), std::string("opencl"), std::string("cuda")}) {
        SCOPED_TRACE("target " + target);
        ImageParam in(Int(32), 2, "in");
        Var c("c");
        RDom r(0, in.dim(1).extent(), "r");
        Func total("total"), peak("peak");
        total(c) = sum(in(c, r));
        peak(c) = maximum(in(c, r));
        in.set_estimates({{0, 4}, {0, 1 << 20}});
        total.set_estimates({{0, 4}});
        peak.set_estimates({{0, 4}});
        const std::string plan = schedule_with_solder({total, peak}, target);
        if (target != "host") {
            EXPECT_NE(plan.find("threads along the results"), std::string::npos) << plan;
        }
        if (target == "cuda") {
            EXPECT_NO_THROW(Pipeline({total, peak})
                                .compile_to_lowered_stmt(::testing::TempDir() + "/sums.stmt", {in}, Text,
                                                         solder::make_target("cuda")));
            continue;
        }
        Pipeline p({total, peak});
        p.compile_jit(solder::make_target(target));
        for (auto [ch, len] : std::vector<std::pair<int, int>>{{4, 100003}, {4, 1}, {2, 4097}, {7, 33}}) {
            SCOPED_TRACE(std::to_string(ch) + "x" + std::to_string(len));
            Buffer<int32_t> img = random_buffer<int32_t>({ch, len}, 12, -1000, 1000);
            in.set(img);
            Buffer<int32_t> t(ch), m(ch);
            p.realize({t, m}, solder::make_target(target));
            t.copy_to_host();
            m.copy_to_host();
            std::vector<int64_t> st(size_t(ch), 0), mx(size_t(ch), INT32_MIN);
            for (int i = 0; i < len; i++)
                for (int k = 0; k < ch; k++) {
                    st[size_t(k)] += img(k, i);
                    mx[size_t(k)] = std::max<int64_t>(mx[size_t(k)], img(k, i));
                }
            EXPECT_TRUE(matches(
                t, [&](auto &q) { return st[size_t(q[0])]; }, 0))
                << plan;
            EXPECT_TRUE(matches(
                m, [&](auto &q) { return mx[size_t(q[0])]; }, 0))
                << plan;
        }
    }
}

// The channel means of an interleaved image summed in doubles: on OpenCL without cl_doubles the
// kernel runs on the host instead (apply_plan), its slices laid out for the host; the plan still
// names the layout it planned.
TEST(LaneResults, DoubleSumsRunOnTheHostOnOpenCLWithoutClDoubles) {
    ImageParam in(Float(32), 3, "in");
    Var c("c");
    RDom r(0, in.dim(1).extent(), 0, in.dim(2).extent(), "r");
    Func mean("mean");
    mean(c) = cast<float>(sum(cast<double>(in(c, r.x, r.y))) / cast<double>(in.dim(1).extent() * in.dim(2).extent()));
    in.set_estimates({{0, 3}, {0, 1920}, {0, 1080}});
    mean.set_estimates({{0, 3}});
    const std::string plan = schedule_with_solder({mean}, "opencl");
    EXPECT_NE(plan.find("computes in float64"), std::string::npos) << plan;
    Pipeline p(mean);
    p.compile_jit(solder::make_target("opencl"));
    Buffer<float> img = random_buffer<float>({3, 200, 50}, 13, 0, 1);
    in.set(img);
    Buffer<float> o = realize_on<float>(p, {3}, "opencl");
    std::vector<double> m(3, 0.0);
    for (int y = 0; y < 50; y++)
        for (int x = 0; x < 200; x++)
            for (int k = 0; k < 3; k++) m[size_t(k)] += img(k, x, y);
    EXPECT_TRUE(matches(
        o, [&](auto &q) { return m[size_t(q[0])] / (200.0 * 50.0); }, 1e-5))
        << plan;
}
