// Shared reductions (schedules/row/shared_reductions.h): a reduction that several kernels read is
// computed per block by the row kernel whose rows it lies at and written there for the others,
// which read copies of the Funcs they read it through. Planned at one size, run at others, on the
// host and on OpenCL (where the GPU plan is made), against plain C++ references; with the option
// off, each such reduction keeps a kernel of its own.
#include <gtest/gtest.h>

#include <array>
#include <cmath>

#include "runtime/block_guards.h"
#include "schedules/row/shared_reductions.h"
#include "tests/support/user_pipeline.h"

using namespace Halide;
using namespace solder::testing;

namespace {

// Layer-norm backward as users write it: the row length and row count from the input; the forward
// statistics recomputed, read by the dx kernel's rows and by the weight gradient's column sums.
struct LayerNormBackward {
    ImageParam x{Float(32), 2, "x"}, dy{Float(32), 2, "dy"}, gamma{Float(32), 1, "gamma"};
    Func dx{"dx"}, dgamma{"dgamma"}, dbeta{"dbeta"};
    LayerNormBackward(int cols, int rows) {
        Var c("c"), r("r");
        Expr n = cast<float>(x.dim(0).extent());
        RDom k(0, x.dim(0).extent(), "k"), rs(0, x.dim(1).extent(), "rs");
        Func mean("mean"), var("var"), rstd("rstd"), xhat("xhat"), g("g"), mean_g("mean_g"), mean_gx("mean_gx");
        mean(r) = sum(x(k, r)) / n;
        var(r) = sum((x(k, r) - mean(r)) * (x(k, r) - mean(r))) / n;
        rstd(r) = 1.0f / sqrt(var(r) + 1e-5f);
        xhat(c, r) = (x(c, r) - mean(r)) * rstd(r);
        g(c, r) = dy(c, r) * gamma(c);
        mean_g(r) = sum(g(k, r)) / n;
        mean_gx(r) = sum(g(k, r) * xhat(k, r)) / n;
        dx(c, r) = rstd(r) * (g(c, r) - mean_g(r) - xhat(c, r) * mean_gx(r));
        dgamma(c) = sum(dy(c, rs) * xhat(c, rs));
        dbeta(c) = sum(dy(c, rs));
        x.set_estimates({{0, cols}, {0, rows}});
        dy.set_estimates({{0, cols}, {0, rows}});
        gamma.set_estimates({{0, cols}});
        dx.set_estimates({{0, cols}, {0, rows}});
        dgamma.set_estimates({{0, cols}});
        dbeta.set_estimates({{0, cols}});
    }
};

struct LayerNormBackwardReference {
    std::vector<double> dx, dgamma, dbeta;
    LayerNormBackwardReference(const Buffer<float> &x, const Buffer<float> &dy, const Buffer<float> &gamma) {
        const int C = x.dim(0).extent(), R = x.dim(1).extent();
        dx.assign(size_t(C) * R, 0);
        dgamma.assign(size_t(C), 0);
        dbeta.assign(size_t(C), 0);
        for (int r = 0; r < R; r++) {
            double m = 0, v = 0, mg = 0, mgx = 0;
            for (int c = 0; c < C; c++) m += x(c, r);
            m /= C;
            for (int c = 0; c < C; c++) v += (x(c, r) - m) * (x(c, r) - m);
            const double rs = 1 / std::sqrt(v / C + 1e-5);
            for (int c = 0; c < C; c++) {
                mg += dy(c, r) * gamma(c);
                mgx += dy(c, r) * gamma(c) * (x(c, r) - m) * rs;
            }
            mg /= C, mgx /= C;
            for (int c = 0; c < C; c++) {
                const double xh = (x(c, r) - m) * rs;
                dx[size_t(r) * C + c] = rs * (dy(c, r) * gamma(c) - mg - xh * mgx);
                dgamma[size_t(c)] += dy(c, r) * xh;
                dbeta[size_t(c)] += dy(c, r);
            }
        }
    }
};

// As Solder's own builds compile: with its lowering pass (runtime/block_guards.h).
Pipeline solder_pipeline(const std::vector<Func> &outputs, const std::string &target) {
    Pipeline p(outputs);
    p.add_custom_lowering_pass(solder::new_block_guards_pass());
    p.compile_jit(solder::make_target(target));
    return p;
}

}  // namespace

TEST(SharedReductions, LayerNormBackwardWritesItsVarianceOnceForEveryKernelAtAnySize) {
    for (const std::string &target : user_targets()) {
        SCOPED_TRACE("target " + target);
        LayerNormBackward ln(4096, 8192);
        const std::string plan = schedule_with_solder({ln.dx, ln.dgamma, ln.dbeta}, target);
        if (target != "host") {
            EXPECT_NE(plan.find("(shared reduction, for other kernels)"), std::string::npos) << plan;
            EXPECT_NE(plan.find("clone_in"), std::string::npos) << plan;
            EXPECT_NE(plan.find("compute_with"), std::string::npos) << plan;
        }
        Pipeline p = solder_pipeline({ln.dx, ln.dgamma, ln.dbeta}, target);
        for (auto [w, h] : std::vector<std::pair<int, int>>{{512, 64}, {37, 29}, {517, 263}, {1, 1}, {300, 3}}) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            Buffer<float> x = random_buffer<float>({w, h}, 5, -2, 2), dy = random_buffer<float>({w, h}, 6, -1, 1),
                          gamma = random_buffer<float>({w}, 7, 0.5, 1.5);
            ln.x.set(x);
            ln.dy.set(dy);
            ln.gamma.set(gamma);
            Buffer<float> dx(w, h), dgamma(w), dbeta(w);
            p.realize({dx, dgamma, dbeta}, solder::make_target(target));
            dx.copy_to_host();
            dgamma.copy_to_host();
            dbeta.copy_to_host();
            LayerNormBackwardReference ref(x, dy, gamma);
            // (A row of one element has no deviation: dx is then about rstd * 0, and rstd ~ 316.)
            EXPECT_TRUE(matches(
                dx, [&](auto &q) { return ref.dx[size_t(q[1]) * w + q[0]]; }, 2e-3))
                << plan;
            EXPECT_TRUE(matches(
                dgamma, [&](auto &q) { return ref.dgamma[size_t(q[0])]; }, 2e-3))
                << plan;
            EXPECT_TRUE(matches(
                dbeta, [&](auto &q) { return ref.dbeta[size_t(q[0])]; }, 1e-4))
                << plan;
        }
    }
}

// The row kernel whose rows the mean lies at writes a pipeline output: its rows are the caller's
// window, while a column sum in another kernel reads the mean, through the centred values both
// inline, at every row of the input. So that kernel does not compute the mean for the column sum
// (a shared reduction), and the two outputs match at any size, also with a window of the output's
// rows away from the first (which Halide's bounds check refused when the output's kernel wrote the
// means for the column sum: a random pipeline's seed 91021).
TEST(SharedReductions, NoneIsHostedByAnOutputsKernel) {
    for (const std::string &target : user_targets()) {
        SCOPED_TRACE("target " + target);
        ImageParam x(Float(32), 2, "x");
        Var c("c"), r("r");
        RDom k(0, x.dim(0).extent(), "k"), rs(0, x.dim(1).extent(), "rs");
        Func mean("mean"), centred("centred"), y("y"), col("col");
        mean(r) = sum(x(k, r)) / cast<float>(x.dim(0).extent());
        centred(c, r) = x(c, r) - mean(r);
        y(c, r) = 3.0f * centred(c, r);
        col(c) = sum(centred(c, rs) * centred(c, rs));
        x.set_estimates({{0, 4096}, {0, 8192}});
        y.set_estimates({{0, 4096}, {0, 8192}});
        col.set_estimates({{0, 4096}});
        const std::string plan = schedule_with_solder({y, col}, target);
        EXPECT_EQ(plan.find("(shared reduction, for other kernels)"), std::string::npos) << plan;
        Pipeline p = solder_pipeline({y, col}, target);
        // (w, h, and the first of the output's rows: the last a window of them.)
        for (auto [w, h, y0] :
             std::vector<std::array<int, 3>>{{256, 40, 0}, {37, 29, 0}, {1, 1, 0}, {300, 3, 0}, {45, 33, 5}}) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " from row " + std::to_string(y0));
            Buffer<float> in = random_buffer<float>({w, h}, 8, -2, 2);
            x.set(in);
            Buffer<float> out(w, h - y0), cs(w);
            out.set_min(0, y0);
            p.realize({out, cs}, solder::make_target(target));
            out.copy_to_host();
            cs.copy_to_host();
            std::vector<double> m(size_t(h), 0);
            for (int j = 0; j < h; j++) {
                for (int i = 0; i < w; i++) m[size_t(j)] += in(i, j);
                m[size_t(j)] /= w;
            }
            EXPECT_TRUE(matches(
                out, [&](auto &q) { return 3.0 * (in(q[0], q[1]) - m[size_t(q[1])]); }, 1e-4))
                << plan;
            EXPECT_TRUE(matches(
                cs,
                [&](auto &q) {
                    double s = 0;
                    for (int j = 0; j < h; j++) s += (in(q[0], j) - m[size_t(j)]) * (in(q[0], j) - m[size_t(j)]);
                    return s;
                },
                1e-4))
                << plan;
        }
    }
}

// A row mean read through a mirrored boundary condition of the centred rows. A block of a row
// kernel of the mirror needs the mean at its mirrored row, one row, but Halide bounds that row over
// every row the mirror might map it to, and the block reduction threads them: computed there and
// shared with another kernel, the mean was a launch of 1536 threads a block at 2048 x 1536 (a
// random typed pipeline's seed 1079, in CI), which no constant thread count could bound without
// breaking the shared copy. So no such kernel shares it; one reading it at its own rows may.
TEST(SharedReductions, NoneIsReadThroughAMirrorOfTheRows) {
    ImageParam x(Float(32), 2, "x");
    Var c("c"), r("r");
    RDom k(0, x.dim(0).extent(), "k");
    Func mean("mean"), centred("centred"), blur("blur"), scaled("scaled");
    mean(r) = sum(x(k, r)) / cast<float>(x.dim(0).extent());
    centred(c, r) = x(c, r) - mean(r);
    Func mirrored = BoundaryConditions::mirror_interior(centred, {{0, x.dim(0).extent()}, {0, x.dim(1).extent()}});
    blur(c, r) = mirrored(c, r - 1) + 2.0f * mirrored(c, r) + mirrored(c, r + 1);
    scaled(c, r) = 3.0f * centred(c, r);
    x.set_estimates({{0, 256}, {0, 192}});
    blur.set_estimates({{0, 256}, {0, 192}});
    scaled.set_estimates({{0, 256}, {0, 192}});
    using namespace solder::autosched;
    const FuncGraph g = FuncGraph::build({blur, scaled});
    int s = -1;  // Halide's inline sum (named sum$N where other tests made one before)
    for (size_t i = 0; i < g.nodes.size(); i++)
        if (name_as_written(g.nodes[i].name) == "sum") s = int(i);
    ASSERT_GE(s, 0);
    // Each root's row kernel computing centred, the mean and its sum per block.
    KernelChoice kc;
    kc.kind = TemplateKind::Row;
    kc.members = {g.find(centred.name()), g.find(mean.name()), s};
    const std::string why = read_through_moving_indices(g, g.find(mirrored.name()), kc, s);
    EXPECT_NE(why.find(mirrored.name() + " reads " + centred.name()), std::string::npos) << why;
    EXPECT_EQ(read_through_moving_indices(g, g.find(scaled.name()), kc, s), "");
}

TEST(SharedReductions, TheOptionTurnsThemOff) {
    LayerNormBackward ln(4096, 8192);
    solder::autosched::PlannerOptions opt;
    opt.shared_reductions = false;
    const std::string plan = schedule_with_solder({ln.dx, ln.dgamma, ln.dbeta}, "opencl", opt);
    EXPECT_EQ(plan.find("shared reduction"), std::string::npos) << plan;
    EXPECT_NE(plan.find("a reduction used by several kernels"), std::string::npos) << plan;
}
