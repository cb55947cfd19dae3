// Reductions to few results over a number of points given by a scalar parameter (a loss over the
// first n tokens, an image's sum over its first n rows, the channel sums of the first n pixels):
// the total reduction template cuts them into slices like any other, and where n = 0 leaves no
// slice at run time the partials still hold one (an allocation of no bytes is refused by Halide's
// GPU runtimes), which the schedule's source writes over the parameter by name. Planned at the
// estimates, run on the host and OpenCL at n from 0 to past the estimate, against plain C++ sums;
// lowered for CUDA.
#include <gtest/gtest.h>

#include <vector>

#include "schedules/writer/expr_source.h"
#include "tests/support/test_processes.h"
#include "tests/support/user_pipeline.h"

using namespace Halide;
using namespace solder::testing;

namespace param_bounded {

// What the schedule's source can write of an RDom's bounds: constants, scalar parameters and
// inputs' buffer fields, each named through its helper, casts, arithmetic, comparisons and select;
// nothing that reads a Func or a buffer, or names a Var.
TEST(ExprSource, WritesParametersAndInputSizesByName) {
    ImageParam in(Float(32), 2, "img");
    Param<int> n("n");
    Param<float> g("g");
    Param<uint8_t> k("k");
    const solder::ExprSource s = solder::expr_source(max(1, (min(n, in.dim(1).extent()) * 64 - 1) / 3 % 7));
    // (Qualified: Halide's .schedule.h declares only Func, Var, RVar, TailStrategy and MemoryType.)
    EXPECT_EQ(s.text, "Halide::max(Halide::Expr(1), ((((Halide::min(solder_param(\"n\"), solder_input_field(\"img\", "
                      "\"extent\", 1)) * Halide::Expr(64)) - Halide::Expr(1)) / Halide::Expr(3)) % Halide::Expr(7)))");
    EXPECT_TRUE(s.names_params);
    EXPECT_TRUE(s.names_inputs);
    EXPECT_EQ(solder::expr_source(Expr(5)).text, "Halide::Expr(5)");
    EXPECT_FALSE(solder::expr_source(Expr(5)).names_params);
    // Floats exactly (hex), other types cast, select and comparisons.
    EXPECT_EQ(solder::expr_source(cast<int>(g * 0.75f)).text,
              "Halide::cast(Halide::Int(32), (solder_param(\"g\") * Halide::Expr(0x1.8p-1f)))");
    EXPECT_EQ(solder::expr_source(select(k > 3 && n != 0, cast<int>(k), 1)).text,
              "Halide::select(((solder_param(\"k\") > Halide::cast(Halide::UInt(8), Halide::Expr(uint64_t(3ULL)))) && "
              "(solder_param(\"n\") != Halide::Expr(0))), Halide::cast(Halide::Int(32), solder_param(\"k\")), "
              "Halide::Expr(1))");
    // Floating-point math as Halide's functions, abs and bitwise operators, lets as their values.
    EXPECT_EQ(solder::expr_source(cast<int>(sqrt(g * g + 1.0f))).text,
              "Halide::cast(Halide::Int(32), Halide::sqrt(((solder_param(\"g\") * solder_param(\"g\")) + "
              "Halide::Expr(0x1p+0f))))");
    EXPECT_EQ(solder::expr_source((n & 7) + cast<int>(abs(n))).text,
              "((solder_param(\"n\") & Halide::Expr(7)) + Halide::cast(Halide::Int(32), "
              "Halide::abs(solder_param(\"n\"))))");
    const Expr t = Internal::Variable::make(Int(32), "t");
    EXPECT_EQ(solder::expr_source(Internal::Let::make("t", n * 2, t + t)).text,
              "((solder_param(\"n\") * Halide::Expr(2)) + (solder_param(\"n\") * Halide::Expr(2)))");
    // A Func or buffer read, a Var, an undefined Expr: not written.
    EXPECT_EQ(solder::expr_source(n + cast<int>(in(0, 0))).text, "");
    EXPECT_EQ(solder::expr_source(Var("x") + 1).text, "");
    EXPECT_EQ(solder::expr_source(Expr()).text, "");
}

// Sums the first `n` entries of `v` (a 1-D input) and the first `rows` rows of `img`, with the
// sum of the rows from `first` to `first + rows` beside it (a parameter in the RDom's min too).
TEST(ParamBoundedReductions, SumsOverTheFirstNPointsRunAtAnyN) {
    for (const std::string &target : {std::string("host"), std::string("opencl"), std::string("cuda")}) {
        SCOPED_TRACE("target " + target);
        ImageParam v(Float(32), 1, "v"), img(Int(32), 2, "img");
        Param<int> n("n"), rows("rows"), first("first");
        RDom r(0, n, "r"), q(0, img.dim(0).extent(), 0, rows, "q"), s(0, img.dim(0).extent(), first, rows, "s");
        Func head("head"), top("top"), band("band");
        head() = sum(v(r));
        top() = sum(img(q.x, q.y));
        band() = maximum(img(s.x, s.y));
        v.set_estimates({{0, 1 << 22}});
        img.set_estimates({{0, 2048}, {0, 2048}});
        n.set_estimate(1 << 22);
        rows.set_estimate(1024);
        first.set_estimate(512);
        const std::string plan = schedule_with_solder({head, top, band}, target);
        if (target != "host") {
            for (const std::string name : {"head", "top", "band"})
                EXPECT_NE(plan.find("writes " + name), std::string::npos) << plan;
            // Each is cut into slices, and the source bounds the partials over the parameter.
            EXPECT_EQ(count_of(plan, "total_reduction, "), 3u) << plan;
            EXPECT_NE(plan.find("Halide::max(Halide::Expr(1), ((solder_param(\"n\") + Halide::Expr("),
                      std::string::npos)
                << plan;
            EXPECT_NE(plan.find("auto solder_param = [&](const std::string &name)"), std::string::npos) << plan;
        }
        if (target == "cuda") {
            EXPECT_NO_THROW(lower_for_cuda({head, top, band}, "param_sums"));
            continue;
        }
        Pipeline p({head, top, band});
        p.compile_jit(solder::make_target(target));
        Buffer<float> vb = random_buffer<float>({300000}, 21, -1, 1);
        Buffer<int32_t> ib = random_buffer<int32_t>({640, 700}, 22, -1000, 1000);
        v.set(vb);
        img.set(ib);
        for (auto [count, nrows, from] : std::vector<std::tuple<int, int, int>>{
                 {0, 0, 0}, {1, 1, 699}, {4097, 33, 5}, {300000, 700, 0}, {123457, 350, 300}}) {
            SCOPED_TRACE("n " + std::to_string(count) + ", rows " + std::to_string(nrows) + " from " +
                         std::to_string(from));
            n.set(count);
            rows.set(nrows);
            first.set(from);
            Buffer<float> h = Buffer<float>::make_scalar();
            Buffer<int32_t> t = Buffer<int32_t>::make_scalar(), b = Buffer<int32_t>::make_scalar();
            p.realize({h, t, b}, solder::make_target(target));
            h.copy_to_host();
            t.copy_to_host();
            b.copy_to_host();
            double want_h = 0;
            for (int i = 0; i < count; i++) want_h += vb(i);
            int64_t want_t = 0;
            int32_t want_b = INT32_MIN;
            for (int y = 0; y < nrows; y++)
                for (int x = 0; x < 640; x++) {
                    want_t += ib(x, y);
                    want_b = std::max(want_b, ib(x, from + y));
                }
            EXPECT_NEAR(h(), want_h, 1e-3 + 1e-5 * count);
            EXPECT_EQ(t(), want_t);
            EXPECT_EQ(b(), want_b);
        }
    }
}

// The sums of an interleaved image's 3 channels over its first n pixels (a 1-D RDom over the
// pixels: threads along the channels and lanes of the RDom, the slices cut from the lanes' walk).
TEST(ParamBoundedReductions, ChannelSumsOfTheFirstNPixels) {
    for (const std::string &target : {std::string("host"), std::string("opencl"), std::string("cuda")}) {
        SCOPED_TRACE("target " + target);
        ImageParam in(Float(32), 2, "in");
        Param<int> n("n");
        Var c("c");
        RDom r(0, n, "r");
        Func sums("sums");
        sums(c) = sum(in(c, r));
        in.set_estimates({{0, 3}, {0, 1 << 21}});
        sums.set_estimates({{0, 3}});
        n.set_estimate(1 << 21);
        const std::string plan = schedule_with_solder({sums}, target);
        if (target != "host") {
            EXPECT_NE(plan.find("threads along the results"), std::string::npos) << plan;
            EXPECT_NE(plan.find("solder_param(\"n\")"), std::string::npos) << plan;
        }
        if (target == "cuda") {
            EXPECT_NO_THROW(lower_for_cuda({sums}, "param_channel_sums"));
            continue;
        }
        Pipeline p(sums);
        p.compile_jit(solder::make_target(target));
        Buffer<float> img = random_buffer<float>({3, 200003}, 23, 0, 1);
        in.set(img);
        for (int count : {0, 1, 31, 4097, 200003}) {
            SCOPED_TRACE("n " + std::to_string(count));
            n.set(count);
            Buffer<float> o = realize_on<float>(p, {3}, target);
            std::vector<double> want(3, 0.0);
            for (int i = 0; i < count; i++)
                for (int k = 0; k < 3; k++) want[size_t(k)] += img(k, i);
            EXPECT_TRUE(matches(
                o, [&](auto &q) { return want[size_t(q[0])]; }, 1e-5 * count + 1e-4))
                << plan;
        }
    }
}

// Column sums and a small matrix product over a parameter's number of rows (split-K: the rows cut
// into slices, their partials in global memory, then added) and a histogram of the first n rows:
// correct at n = 0, where no slice is left, and past it.
TEST(ParamBoundedReductions, SplitKPartialsOverTheFirstNRows) {
    for (const std::string &target : {std::string("host"), std::string("opencl"), std::string("cuda")}) {
        SCOPED_TRACE("target " + target);
        ImageParam in(Float(32), 2, "in"), a(Float(32), 2, "a"), b(Float(32), 2, "b");
        Param<int> n("n");
        Var x("x"), y("y");
        RDom r(0, n, "r"), rows(0, in.dim(0).extent(), 0, n, "rows");
        Func cols("cols"), prod("prod"), hist("hist");
        cols(x) = sum(in(x, r));
        prod(x, y) = sum(a(r, y) * b(x, r));
        hist(x) = 0;
        hist(clamp(cast<int>(in(rows.x, rows.y) * 16.0f), 0, 15)) += 1;
        in.set_estimates({{0, 1024}, {0, 65536}});
        a.set_estimates({{0, 65536}, {0, 64}});
        b.set_estimates({{0, 64}, {0, 65536}});
        n.set_estimate(65536);
        cols.set_estimates({{0, 1024}});
        prod.set_estimates({{0, 64}, {0, 64}});
        hist.set_estimates({{0, 16}});
        const std::string plan = schedule_with_solder({cols, prod, hist}, target);
        if (target != "host") {
            EXPECT_EQ(count_of(plan, "split-K: "), 2u) << plan;
            EXPECT_NE(plan.find(".bound("), std::string::npos) << plan;
            EXPECT_NE(plan.find("solder_param(\"n\")"), std::string::npos) << plan;
        }
        if (target == "cuda") {
            EXPECT_NO_THROW(lower_for_cuda({cols, prod, hist}, "param_split_k"));
            continue;
        }
        Pipeline p({cols, prod, hist});
        p.compile_jit(solder::make_target(target));
        Buffer<float> ib = random_buffer<float>({300, 3000}, 31, 0, 1),
                      ab = random_buffer<float>({3000, 20}, 32, -1, 1),
                      bb = random_buffer<float>({20, 3000}, 33, -1, 1);
        in.set(ib);
        a.set(ab);
        b.set(bb);
        for (int count : {0, 1, 37, 3000}) {
            SCOPED_TRACE("n " + std::to_string(count));
            n.set(count);
            Buffer<float> c(300), m(20, 20);
            Buffer<int32_t> h(16);
            p.realize({c, m, h}, solder::make_target(target));
            c.copy_to_host();
            m.copy_to_host();
            h.copy_to_host();
            EXPECT_TRUE(matches(
                c,
                [&](auto &q) {
                    double t = 0;
                    for (int i = 0; i < count; i++) t += ib(q[0], i);
                    return t;
                },
                1e-4))
                << plan;
            EXPECT_TRUE(matches(
                m,
                [&](auto &q) {
                    double t = 0;
                    for (int i = 0; i < count; i++) t += double(ab(i, q[1])) * bb(q[0], i);
                    return t;
                },
                1e-3))
                << plan;
            std::vector<int> want(16, 0);
            for (int i = 0; i < count; i++)
                for (int xx = 0; xx < 300; xx++) want[size_t(std::clamp(int(ib(xx, i) * 16.0f), 0, 15))]++;
            EXPECT_TRUE(matches(
                h, [&](auto &q) { return want[size_t(q[0])]; }, 0))
                << plan;
        }
    }
}

}  // namespace param_bounded
