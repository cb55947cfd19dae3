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

// A channels-last feature map's per-channel statistics (a batch norm's): 64 channels at the
// estimates, each over 56 x 56 pixels and a batch of 32. No RVar outside the lanes' has steps
// enough for the slices wanted, so two are cut (the rows, then the batch): a block for each pair of
// slices, 4 lanes per channel. Run where the second cut's extent is no multiple of its slices,
// smaller than one, and 1; with fewer and more channels than planned for.
TEST(LaneResults, ChannelsLastStatisticsCutTwoRVars) {
    for (const std::string &target : {std::string("host"), std::string("opencl"), std::string("cuda")}) {
        SCOPED_TRACE("target " + target);
        ImageParam in(Float(32), 4, "in");
        Var c("c"), x("x"), y("y"), n("n");
        Expr count = cast<float>(in.dim(1).extent() * in.dim(2).extent() * in.dim(3).extent());
        RDom r(0, in.dim(1).extent(), 0, in.dim(2).extent(), 0, in.dim(3).extent(), "r");
        Func mean("mean"), var("var"), out("out");
        mean(c) = sum(in(c, r.x, r.y, r.z)) / count;
        Expr d = in(c, r.x, r.y, r.z) - mean(c);
        var(c) = sum(d * d) / count;
        out(c, x, y, n) = (in(c, x, y, n) - mean(c)) / sqrt(var(c) + 1e-5f);
        in.set_estimates({{0, 64}, {0, 56}, {0, 56}, {0, 32}});
        out.set_estimates({{0, 64}, {0, 56}, {0, 56}, {0, 32}});
        const std::string plan = schedule_with_solder({out}, target);
        if (target != "host") {
            EXPECT_NE(plan.find("each cut again into"), std::string::npos) << plan;
            EXPECT_NE(plan.find("threads along the results and then 4 lanes"), std::string::npos) << plan;
        }
        if (target == "cuda") {
            EXPECT_NO_THROW(Pipeline(out).compile_to_lowered_stmt(::testing::TempDir() + "/nhwc.stmt", {in}, Text,
                                                                  solder::make_target("cuda")));
            continue;
        }
        Pipeline p(out);
        p.compile_jit(solder::make_target(target));
        for (auto [ch, side, batch] :
             std::vector<std::tuple<int, int, int>>{{64, 9, 7}, {64, 5, 37}, {3, 4, 2}, {70, 3, 1}, {1, 1, 1}}) {
            SCOPED_TRACE(std::to_string(ch) + "x" + std::to_string(side) + "x" + std::to_string(batch));
            Buffer<float> img = random_buffer<float>({ch, side, side, batch}, 13, -1, 3);
            in.set(img);
            Buffer<float> o = realize_on<float>(p, {ch, side, side, batch}, target);
            const double cnt = double(side) * side * batch;
            std::vector<double> m(size_t(ch), 0.0), v(size_t(ch), 0.0);
            img.for_each_element([&](const int *q) { m[size_t(q[0])] += img(q); });
            for (double &e : m) e /= cnt;
            img.for_each_element(
                [&](const int *q) { v[size_t(q[0])] += (img(q) - m[size_t(q[0])]) * (img(q) - m[size_t(q[0])]); });
            for (double &e : v) e /= cnt;
            EXPECT_TRUE(matches(
                o,
                [&](auto &q) {
                    return (img(q[0], q[1], q[2], q[3]) - m[size_t(q[0])]) / std::sqrt(v[size_t(q[0])] + 1e-5);
                },
                1e-3))
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
