// Side outputs of row kernels (schedules/row/side_outputs.h): a pipeline output that another output
// reads, at the points of a row kernel's rows and computed from the kernel's per-row reductions (a
// layer norm's saved means and inverse deviations, int8 quantization's scales), is written by that
// kernel's blocks beside its root instead of by kernels of its own. Planned at one size, run at
// others, on the host and on OpenCL, against plain C++ references; and outputs that a row kernel
// cannot write keep kernels of their own, with the reason in the plan.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <cmath>
#include <tuple>

#include "tests/support/user_pipeline.h"

using namespace Halide;
using namespace solder::testing;

namespace {

// A layer norm that also returns the statistics its backward pass reads, written as users write it:
// the row length from the input, the statistics outputs of their own that the normalized output
// reads, the input read through a Func of its own (the reductions read it over the row: their
// reads are the block's, not at the statistics' points).
struct LayerNormWithStatistics {
    ImageParam x{Float(32), 2, "x"};
    Func y{"y"}, mean{"mean"}, rstd{"rstd"};
    explicit LayerNormWithStatistics(int cols, int rows) {
        Var c("c"), r("r");
        RDom k(0, x.dim(0).extent(), "k");
        Expr n = cast<float>(x.dim(0).extent());
        Func in("in");
        in(c, r) = 2.0f * x(c, r);
        mean(r) = sum(in(k, r)) / n;
        Func var("var");
        var(r) = sum((in(k, r) - mean(r)) * (in(k, r) - mean(r))) / n;
        rstd(r) = 1.0f / sqrt(var(r) + 1e-5f);
        y(c, r) = (in(c, r) - mean(r)) * rstd(r);
        x.set_estimates({{0, cols}, {0, rows}});
        y.set_estimates({{0, cols}, {0, rows}});
        mean.set_estimates({{0, rows}});
        rstd.set_estimates({{0, rows}});
    }
};

void layer_norm_reference(const Buffer<float> &x, std::vector<double> &mean, std::vector<double> &rstd) {
    const int C = x.dim(0).extent(), R = x.dim(1).extent();
    mean.assign(size_t(R), 0);
    rstd.assign(size_t(R), 0);
    for (int r = 0; r < R; r++) {
        double s = 0, v = 0;
        for (int c = 0; c < C; c++) s += 2.0 * x(c, r);
        s /= C;
        for (int c = 0; c < C; c++) v += (2.0 * x(c, r) - s) * (2.0 * x(c, r) - s);
        mean[size_t(r)] = s;
        rstd[size_t(r)] = 1 / std::sqrt(v / C + 1e-5);
    }
}

}  // namespace

TEST(SideOutputs, LayerNormStatisticsAreWrittenByItsRowKernelAtAnySize) {
    for (const std::string &target : user_targets()) {
        SCOPED_TRACE("target " + target);
        LayerNormWithStatistics ln(4096, 8192);
        const std::string plan = schedule_with_solder({ln.y, ln.mean, ln.rstd}, target);
        if (target != "host") {
            EXPECT_NE(plan.find("1 kernel,"), std::string::npos) << plan;
            // (Names may carry Halide's "$N" suffixes: the kernel's line, by its words.)
            EXPECT_NE(plan.find(" (side output) and rstd"), std::string::npos) << plan;
            EXPECT_NE(plan.find(" (side output): reads"), std::string::npos) << plan;
            EXPECT_NE(plan.find("clone_in"), std::string::npos) << plan;
        }
        Pipeline p({ln.y, ln.mean, ln.rstd});
        p.compile_jit(solder::make_target(target));
        for (auto [w, h] : std::vector<std::pair<int, int>>{{512, 64}, {37, 29}, {517, 263}, {1, 1}, {4096, 3}}) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            Buffer<float> in = random_buffer<float>({w, h}, 3, -2, 2);
            ln.x.set(in);
            Buffer<float> y(w, h), mean(h), rstd(h);
            p.realize({y, mean, rstd}, solder::make_target(target));
            y.copy_to_host();
            mean.copy_to_host();
            rstd.copy_to_host();
            std::vector<double> m, s;
            layer_norm_reference(in, m, s);
            EXPECT_TRUE(matches(
                mean, [&](auto &q) { return m[size_t(q[0])]; }, 1e-4))
                << plan;
            // (A row of one element has no deviation: its inverse is 1 / sqrt(eps), about 316.)
            EXPECT_TRUE(matches(
                rstd, [&](auto &q) { return s[size_t(q[0])]; }, 1e-3))
                << plan;
            EXPECT_TRUE(matches(
                y, [&](auto &q) { return (2.0 * in(q[0], q[1]) - m[size_t(q[1])]) * s[size_t(q[1])]; }, 1e-3))
                << plan;
        }
    }
}

// Rows of a batch over two block dims (tokens x sequences): the side output has two dims, each laid
// out as the root's block dims. Planned where the root alone would take several rows per block,
// which a kernel with side outputs does not.
TEST(SideOutputs, BatchedRowsOverTwoBlockDimsAtAnySize) {
    for (const std::string &target : user_targets()) {
        SCOPED_TRACE("target " + target);
        ImageParam x(Float(32), 3, "x");
        Var c("c"), t("t"), b("b");
        RDom k(0, x.dim(0).extent(), "k");
        Func rms("rms"), out("out");
        rms(t, b) = sqrt(sum(x(k, t, b) * x(k, t, b)) / cast<float>(x.dim(0).extent()) + 1e-6f);
        out(c, t, b) = x(c, t, b) / rms(t, b);
        x.set_estimates({{0, 1024}, {0, 64}, {0, 1024}});
        out.set_estimates({{0, 1024}, {0, 64}, {0, 1024}});
        rms.set_estimates({{0, 64}, {0, 1024}});
        const std::string plan = schedule_with_solder({out, rms}, target);
        if (target != "host") {
            EXPECT_NE(plan.find(" (side output): reads"), std::string::npos) << plan;
            // (One row per block: with several, the last, partial block's rows came out wrong.)
            EXPECT_EQ(plan.find("rows per block"), std::string::npos) << plan;
        }
        Pipeline p({out, rms});
        p.compile_jit(solder::make_target(target));
        for (auto [C, T, B] :
             std::vector<std::tuple<int, int, int>>{{1024, 8, 4}, {37, 5, 3}, {300, 13, 2}, {1, 1, 1}}) {
            SCOPED_TRACE(std::to_string(C) + "x" + std::to_string(T) + "x" + std::to_string(B));
            Buffer<float> in = random_buffer<float>({C, T, B}, 4, -1, 1);
            x.set(in);
            Buffer<float> o(C, T, B), r(T, B);
            p.realize({o, r}, solder::make_target(target));
            o.copy_to_host();
            r.copy_to_host();
            auto want = [&](int tt, int bb) {
                double s = 0;
                for (int cc = 0; cc < C; cc++) s += double(in(cc, tt, bb)) * in(cc, tt, bb);
                return std::sqrt(s / C + 1e-6);
            };
            EXPECT_TRUE(matches(
                r, [&](auto &q) { return want(q[0], q[1]); }, 1e-4))
                << plan;
            EXPECT_TRUE(matches(
                o, [&](auto &q) { return in(q[0], q[1], q[2]) / want(q[1], q[2]); }, 1e-4))
                << plan;
        }
    }
}

// An output its readers read at a neighbouring row: a block computes the row sums of the rows it
// needs, not of its own row alone, so the output keeps a kernel of its own, and the plan says why.
TEST(SideOutputs, AnOutputReadAtAnotherRowKeepsItsOwnKernel) {
    for (const std::string &target : user_targets()) {
        SCOPED_TRACE("target " + target);
        ImageParam x(Float(32), 2, "x");
        Var c("c"), r("r");
        RDom k(0, x.dim(0).extent(), "k");
        Func total("total"), out("out");
        total(r) = sum(x(k, r));
        Expr last = x.dim(1).extent() - 1;
        out(c, r) = x(c, r) - total(min(r + 1, last));
        x.set_estimates({{0, 2048}, {0, 4096}});
        out.set_estimates({{0, 2048}, {0, 4096}});
        total.set_estimates({{0, 4096}});
        const std::string plan = schedule_with_solder({out, total}, target);
        EXPECT_EQ(plan.find("(side output): reads"), std::string::npos) << plan;
        if (target != "host") {
            EXPECT_NE(plan.find("beyond the block's own rows"), std::string::npos) << plan;
        }
        Pipeline p({out, total});
        p.compile_jit(solder::make_target(target));
        for (auto [w, h] : std::vector<std::pair<int, int>>{{300, 40}, {1, 1}}) {
            Buffer<float> in = random_buffer<float>({w, h}, 5, -1, 1);
            x.set(in);
            Buffer<float> o(w, h), t(h);
            p.realize({o, t}, solder::make_target(target));
            o.copy_to_host();
            t.copy_to_host();
            auto row = [&](int j) {
                double s = 0;
                for (int i = 0; i < w; i++) s += in(i, j);
                return s;
            };
            EXPECT_TRUE(matches(
                t, [&](auto &q) { return row(q[0]); }, 1e-4))
                << plan;
            EXPECT_TRUE(matches(
                o, [&](auto &q) { return in(q[0], q[1]) - row(std::min(q[1] + 1, h - 1)); }, 1e-4))
                << plan;
        }
    }
}

// The option turns it off: the statistics are stored by kernels of their own, and the plan says
// nothing of side outputs.
TEST(SideOutputs, TheOptionTurnsThemOff) {
    LayerNormWithStatistics ln(4096, 8192);
    solder::autosched::PlannerOptions opt;
    opt.side_outputs = false;
    const std::string plan = schedule_with_solder({ln.y, ln.mean, ln.rstd}, "opencl", opt);
    EXPECT_EQ(plan.find("side output"), std::string::npos) << plan;
    EXPECT_EQ(plan.find("1 kernel,"), std::string::npos) << plan;
}

// Per-row int8 quantization written as users write it: the scales an output that the values divide
// by. On a GPU one row kernel writes both, in accesses no wider than 16 bytes of the f32 rows it
// reads (4 wide, not the 8 int8 values 16 bytes of its stores would take).
TEST(SideOutputs, Int8QuantizationWritesItsScalesInSixteenByteAccessesOfItsRows) {
    for (const std::string &target : user_targets()) {
        SCOPED_TRACE("target " + target);
        ImageParam x(Float(32), 2, "x");
        Var c("c"), r("r");
        RDom k(0, x.dim(0).extent(), "k");
        Func scale("scale"), q("q");
        scale(r) = max(maximum(abs(x(k, r))), 1e-8f) / 127.0f;
        q(c, r) = cast<int8_t>(clamp(round(x(c, r) / scale(r)), -127.0f, 127.0f));
        x.set_estimates({{0, 4096}, {0, 8192}});
        q.set_estimates({{0, 4096}, {0, 8192}});
        scale.set_estimates({{0, 8192}});
        const std::string plan = schedule_with_solder({q, scale}, target);
        if (target != "host") {
            EXPECT_NE(plan.find("1 kernel,"), std::string::npos) << plan;
            EXPECT_NE(plan.find("[row, x4 vectors] writes"), std::string::npos) << plan;
            EXPECT_NE(plan.find(" (side output): reads"), std::string::npos) << plan;
        }
        Pipeline p({q, scale});
        p.compile_jit(solder::make_target(target));
        for (auto [w, h] : std::vector<std::pair<int, int>>{{1024, 16}, {37, 29}, {517, 3}, {1, 1}}) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            Buffer<float> in = random_buffer<float>({w, h}, 6, -3, 3);
            x.set(in);
            Buffer<int8_t> qo(w, h);
            Buffer<float> so(h);
            p.realize({qo, so}, solder::make_target(target));
            qo.copy_to_host();
            so.copy_to_host();
            std::vector<float> want(size_t(h), 0.0f);
            for (int j = 0; j < h; j++) {
                float m = 0;
                for (int i = 0; i < w; i++) m = std::max(m, std::fabs(in(i, j)));
                want[size_t(j)] = std::max(m, 1e-8f) / 127.0f;
            }
            EXPECT_TRUE(matches(
                so, [&](auto &s) { return want[size_t(s[0])]; }, 1e-6))
                << plan;
            // A value at a rounding boundary may land one level off (the scale's last bit: Halide
            // divides by 127 as a multiplication by its inverse): none further, and few of those.
            int off = 0, far = 0;
            for (int j = 0; j < h; j++)
                for (int i = 0; i < w; i++) {
                    const float v = std::clamp(std::nearbyint(in(i, j) / want[size_t(j)]), -127.0f, 127.0f);
                    const float d = std::fabs(float(qo(i, j)) - v);
                    off += d == 1.0f;
                    far += d > 1.0f;
                }
            EXPECT_EQ(far, 0) << plan;
            EXPECT_LE(off, std::max(1, w * h / 50)) << plan;
        }
    }
}

// A pointwise output that another output reads at its points (a bias add kept for the backward
// pass, and its activation): one pointwise kernel writes both, each thread computing its points of
// the one and then of the other (fused at the thread loop), the activation reading a copy.
TEST(SideOutputs, APointwiseOutputTheNextOutputReadsIsWrittenByItsKernelAtAnySize) {
    for (const std::string &target : user_targets()) {
        SCOPED_TRACE("target " + target);
        ImageParam x(Float(32), 2, "x"), bias(Float(32), 1, "bias");
        Var c("c"), t("t");
        Func pre("pre"), act("act");
        pre(c, t) = x(c, t) + bias(c);
        act(c, t) = pre(c, t) * (1.0f / (1.0f + exp(-1.702f * pre(c, t))));
        x.set_estimates({{0, 4096}, {0, 8192}});
        bias.set_estimates({{0, 4096}});
        act.set_estimates({{0, 4096}, {0, 8192}});
        pre.set_estimates({{0, 4096}, {0, 8192}});
        const std::string plan = schedule_with_solder({act, pre}, target);
        if (target != "host") {
            EXPECT_NE(plan.find("1 kernel,"), std::string::npos) << plan;
            EXPECT_NE(plan.find("[pointwise, x4 vectors] writes"), std::string::npos) << plan;
            EXPECT_NE(plan.find(" (side output): reads"), std::string::npos) << plan;
        }
        Pipeline p({act, pre});
        p.compile_jit(solder::make_target(target));
        for (auto [w, h] : std::vector<std::pair<int, int>>{{1024, 16}, {37, 29}, {517, 3}, {1, 1}}) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            Buffer<float> in = random_buffer<float>({w, h}, 7, -3, 3), b = random_buffer<float>({w}, 8, -1, 1);
            x.set(in);
            bias.set(b);
            Buffer<float> ao(w, h), po(w, h);
            p.realize({ao, po}, solder::make_target(target));
            ao.copy_to_host();
            po.copy_to_host();
            auto pre_at = [&](int i, int j) { return double(in(i, j)) + b(i); };
            EXPECT_TRUE(matches(
                po, [&](auto &q) { return pre_at(q[0], q[1]); }, 1e-6))
                << plan;
            EXPECT_TRUE(matches(
                ao, [&](auto &q) { return pre_at(q[0], q[1]) / (1 + std::exp(-1.702 * pre_at(q[0], q[1]))); }, 1e-4))
                << plan;
        }
    }
}

namespace {

// A residual add before an RMS norm, as LLM inference writes it: both the normed values and the
// sum (the residual stream's next value) are outputs, the sum read by no Func. Alone, the sum is a
// pointwise kernel reading both addends again.
struct AddThenRmsNorm {
    ImageParam x{Float(32), 2, "x"}, res{Float(32), 2, "res"};
    Func out{"out"}, sum_out{"sum_out"};
    explicit AddThenRmsNorm(int cols, int rows) {
        Var c("c"), t("t");
        Func h("h"), ms("ms");
        h(c, t) = x(c, t) + res(c, t);
        RDom k(0, x.dim(0).extent(), "k");
        ms(t) = sum(h(k, t) * h(k, t)) / cast<float>(x.dim(0).extent());
        out(c, t) = h(c, t) / sqrt(ms(t) + 1e-6f);
        sum_out(c, t) = h(c, t);
        x.set_estimates({{0, cols}, {0, rows}});
        res.set_estimates({{0, cols}, {0, rows}});
        out.set_estimates({{0, cols}, {0, rows}});
        sum_out.set_estimates({{0, cols}, {0, rows}});
    }
};

}  // namespace

// The sum is written by the norm's row kernel beside the normed values, its rows over the block's
// threads: one kernel, the addends read once. Planned at 4096 x 8192 and run at other sizes.
TEST(SideOutputs, AnOutputOverTheRowKernelsPointsIsWrittenByItAtAnySize) {
    for (const std::string &target : user_targets()) {
        SCOPED_TRACE("target " + target);
        AddThenRmsNorm a(4096, 8192);
        const std::string plan = schedule_with_solder({a.out, a.sum_out}, target);
        if (target != "host") {
            EXPECT_NE(plan.find("1 kernel,"), std::string::npos) << plan;
            EXPECT_TRUE(
                std::regex_search(plan, std::regex("writes out(\\$\\d+)? and sum_out(\\$\\d+)? \\(side output\\)")))
                << plan;
            EXPECT_NE(plan.find("computed by the block's threads after the row"), std::string::npos) << plan;
        }
        Pipeline p({a.out, a.sum_out});
        p.compile_jit(solder::make_target(target));
        for (auto [w, h] : std::vector<std::pair<int, int>>{{512, 64}, {37, 29}, {2100, 5}, {1, 1}, {4096, 3}}) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            Buffer<float> in = random_buffer<float>({w, h}, 5, -2, 2), rin = random_buffer<float>({w, h}, 6, -1, 1);
            a.x.set(in);
            a.res.set(rin);
            Buffer<float> out(w, h), s(w, h);
            p.realize({out, s}, solder::make_target(target));
            out.copy_to_host();
            s.copy_to_host();
            std::vector<double> ms(size_t(h), 0);
            for (int t = 0; t < h; t++) {
                for (int c = 0; c < w; c++) ms[size_t(t)] += double(in(c, t) + rin(c, t)) * (in(c, t) + rin(c, t));
                ms[size_t(t)] /= w;
            }
            EXPECT_TRUE(matches(
                s, [&](auto &q) { return double(in(q[0], q[1]) + rin(q[0], q[1])); }, 1e-6))
                << plan;
            EXPECT_TRUE(matches(
                out,
                [&](auto &q) {
                    return (double(in(q[0], q[1]) + rin(q[0], q[1]))) / std::sqrt(ms[size_t(q[1])] + 1e-6);
                },
                1e-3))
                << plan;
        }
    }
}

// Lowered for CUDA: the row kernel and the sum share one launch.
TEST(SideOutputs, AnOutputOverTheRowKernelsPointsLowersForCuda) {
    AddThenRmsNorm a(4096, 8192);
    const std::string plan = schedule_with_solder({a.out, a.sum_out}, "cuda");
    EXPECT_NE(plan.find("1 kernel,"), std::string::npos) << plan;
    EXPECT_NO_THROW(lower_for_cuda({a.out, a.sum_out}, "add_rms_norm")) << plan;
}
