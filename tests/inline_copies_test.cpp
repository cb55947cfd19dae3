// The copies of inlined definitions a kernel's expression holds (autosched/model/inline_copies.h),
// and the search's limit on them: a Horn-Schunck flow written as users write it (five iterations
// of neighbour averages, each reading u and v) had every iteration inlined into two kernels, and
// Halide's lowering ran for minutes. A search under a limit keeps every kernel within it, and the
// flow's plan matches plain loops at any size.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "autosched/model/func_graph.h"
#include "autosched/model/inline_copies.h"
#include "autosched/search.h"
#include "tests/support/user_pipeline.h"

namespace inline_copies_test {

using solder::autosched::FuncGraph;
using solder::autosched::inline_copies;
using solder::autosched::InlineCopies;

namespace {

// (Halide makes Func names unique within a process: "ic_out$1" where another test built one.)
int node_named(const FuncGraph &g, const std::string &name) {
    for (size_t i = 0; i < g.nodes.size(); i++)
        if (g.nodes[i].name == name || g.nodes[i].name.rfind(name + "$", 0) == 0) return int(i);
    ADD_FAILURE() << name << " is not in the graph";
    return 0;
}

}  // namespace

// Each call multiplies: c read at 4 taps by the root, b at 4 taps by c, a at 4 taps by b. A Func
// computed apart is one evaluation per call; one another kernel reads too is inlined regardless.
TEST(InlineCopies, CallsMultiplyThroughAChainOfStencils) {
    using namespace Halide;
    ImageParam in(Float(32), 2, "ic_in");
    Var x("x"), y("y");
    Func a("ic_a"), b("ic_b"), c("ic_c"), out("ic_out"), other("ic_other");
    auto taps = [&](Func f) { return f(x - 1, y) + f(x + 1, y) + f(x, y - 1) + f(x, y + 1); };
    a(x, y) = in(x, y) * 2.0f;
    b(x, y) = taps(a);
    c(x, y) = taps(b);
    out(x, y) = taps(c);
    other(x, y) = c(x, y) + 1.0f;
    in.set_estimates({{0, 512}, {0, 512}});
    out.set_estimates({{0, 500}, {0, 500}});
    other.set_estimates({{0, 500}, {0, 500}});
    const FuncGraph g = FuncGraph::build({out});
    const int ia = node_named(g, "ic_a"), ib = node_named(g, "ic_b"), ic = node_named(g, "ic_c"),
              root = node_named(g, "ic_out");
    std::vector<bool> inside(g.nodes.size(), false);
    inside[size_t(ia)] = inside[size_t(ib)] = inside[size_t(ic)] = true;

    const InlineCopies all = inline_copies(g, root, inside, {});
    EXPECT_EQ(all.per_node[size_t(ic)], 4);
    EXPECT_EQ(all.per_node[size_t(ib)], 16);
    EXPECT_EQ(all.per_node[size_t(ia)], 64);
    EXPECT_EQ(all.member, -1);
    // Past a limit, the member nearest the root where the operations pass it.
    EXPECT_EQ(inline_copies(g, root, inside, {}, 0).member, ic);

    // b computed apart (per tile): a is copied 4 times per point of b, once per call of b.
    const InlineCopies b_apart = inline_copies(g, root, inside, {ib});
    EXPECT_EQ(b_apart.per_node[size_t(ia)], 4);
    EXPECT_LT(b_apart.total, all.total);
    // c read by another kernel too (`other`): inlined here whatever the template would stage,
    // and b with it.
    const FuncGraph g2 = FuncGraph::build({out, other});
    const int root2 = node_named(g2, "ic_out");
    std::vector<bool> inside2(g2.nodes.size(), false);
    for (const char *m : {"ic_a", "ic_b", "ic_c"}) inside2[size_t(node_named(g2, m))] = true;
    const InlineCopies shared = inline_copies(g2, root2, inside2, {node_named(g2, "ic_c"), node_named(g2, "ic_b")});
    EXPECT_EQ(shared.per_node[size_t(node_named(g2, "ic_a"))], 64);
    EXPECT_EQ(shared.total, inline_copies(g2, root2, inside2, {}).total);
}

namespace {

// Horn-Schunck flow between two frames (edges repeated), as the user-pipeline bench writes it.
struct Flow {
    Halide::ImageParam f0{Halide::Float(32), 2, "hs_f0"}, f1{Halide::Float(32), 2, "hs_f1"};
    Halide::Func u, v;
    static constexpr float kAlpha = 1.0f;
    static constexpr int kIterations = 5;

    Flow() {
        using namespace Halide;
        Var x("x"), y("y");
        Func a = BoundaryConditions::repeat_edge(f0), b = BoundaryConditions::repeat_edge(f1);
        Func ix("hs_ix"), iy("hs_iy"), it("hs_it"), den("hs_den");
        ix(x, y) = 0.5f * (a(x + 1, y) - a(x, y) + b(x + 1, y) - b(x, y));
        iy(x, y) = 0.5f * (a(x, y + 1) - a(x, y) + b(x, y + 1) - b(x, y));
        it(x, y) = b(x, y) - a(x, y);
        den(x, y) = kAlpha * kAlpha + ix(x, y) * ix(x, y) + iy(x, y) * iy(x, y);
        Expr w = f0.dim(0).extent(), h = f0.dim(1).extent();
        u = Func("hs_u0"), v = Func("hs_v0");
        u(x, y) = -ix(x, y) * it(x, y) / den(x, y);
        v(x, y) = -iy(x, y) * it(x, y) / den(x, y);
        for (int k = 1; k < kIterations; k++) {
            Func uc = BoundaryConditions::repeat_edge(u, {{0, w}, {0, h}});
            Func vc = BoundaryConditions::repeat_edge(v, {{0, w}, {0, h}});
            Func ub, vb, t, un("hs_u" + std::to_string(k)), vn("hs_v" + std::to_string(k));
            ub(x, y) = 0.25f * (uc(x - 1, y) + uc(x + 1, y) + uc(x, y - 1) + uc(x, y + 1));
            vb(x, y) = 0.25f * (vc(x - 1, y) + vc(x + 1, y) + vc(x, y - 1) + vc(x, y + 1));
            t(x, y) = (ix(x, y) * ub(x, y) + iy(x, y) * vb(x, y) + it(x, y)) / den(x, y);
            un(x, y) = ub(x, y) - ix(x, y) * t(x, y);
            vn(x, y) = vb(x, y) - iy(x, y) * t(x, y);
            u = un, v = vn;
        }
        f0.set_estimates({{0, 1920}, {0, 1080}});
        f1.set_estimates({{0, 1920}, {0, 1080}});
        u.set_estimates({{0, 1920}, {0, 1080}});
        v.set_estimates({{0, 1920}, {0, 1080}});
    }
};

// The same flow in plain loops.
void flow_reference(const Halide::Buffer<float> &f0, const Halide::Buffer<float> &f1, std::vector<float> &u,
                    std::vector<float> &v) {
    const int W = f0.width(), H = f0.height();
    auto at = [&](const Halide::Buffer<float> &f, int x, int y) {
        return f(std::clamp(x, 0, W - 1), std::clamp(y, 0, H - 1));
    };
    std::vector<float> ix(size_t(W * H)), iy(ix.size()), it(ix.size()), den(ix.size());
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const size_t i = size_t(y * W + x);
            ix[i] = 0.5f * (at(f0, x + 1, y) - at(f0, x, y) + at(f1, x + 1, y) - at(f1, x, y));
            iy[i] = 0.5f * (at(f0, x, y + 1) - at(f0, x, y) + at(f1, x, y + 1) - at(f1, x, y));
            it[i] = at(f1, x, y) - at(f0, x, y);
            den[i] = Flow::kAlpha * Flow::kAlpha + ix[i] * ix[i] + iy[i] * iy[i];
        }
    u.assign(ix.size(), 0), v.assign(ix.size(), 0);
    for (size_t i = 0; i < ix.size(); i++) u[i] = -ix[i] * it[i] / den[i], v[i] = -iy[i] * it[i] / den[i];
    for (int k = 1; k < Flow::kIterations; k++) {
        std::vector<float> un(u.size()), vn(v.size());
        auto c = [&](const std::vector<float> &f, int x, int y) {
            return f[size_t(std::clamp(y, 0, H - 1) * W + std::clamp(x, 0, W - 1))];
        };
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                const size_t i = size_t(y * W + x);
                const float ub = 0.25f * (c(u, x - 1, y) + c(u, x + 1, y) + c(u, x, y - 1) + c(u, x, y + 1));
                const float vb = 0.25f * (c(v, x - 1, y) + c(v, x + 1, y) + c(v, x, y - 1) + c(v, x, y + 1));
                const float t = (ix[i] * ub + iy[i] * vb + it[i]) / den[i];
                un[i] = ub - ix[i] * t, vn[i] = vb - iy[i] * t;
            }
        u.swap(un), v.swap(vn);
    }
}

}  // namespace

// Under a limit (the search sets kMaxInlineOps where its first plan passed it), no kernel of the
// plan inlines more operations per point than the limit, counted as the kernel's template computes
// its members.
TEST(InlineCopies, ASearchUnderALimitKeepsEveryKernelWithinIt) {
    using namespace solder::autosched;
    Flow flow;
    const FuncGraph g = FuncGraph::build({flow.u, flow.v});
    PlannerOptions opt;
    const SearchResult free = search_roots(g, opt);
    auto most = [&](const solder::autosched::Partition &p) { return most_inline_ops(g, opt, p); };
    const double limit = 200;
    ASSERT_GT(most(free.best), limit) << free.summary;
    opt.max_inline_ops = limit;
    const SearchResult limited = search_roots(g, opt);
    ASSERT_TRUE(limited.best.legal());
    EXPECT_LE(most(limited.best), limit) << limited.summary;
    EXPECT_GT(limited.best.choice.size(), free.best.choice.size());
}

TEST(InlineCopies, AFlowsPlanMatchesPlainLoopsAtAnySize) {
    for (const std::string target : {"opencl"}) {
        Flow flow;
        const std::string plan = solder::testing::schedule_with_solder({flow.u, flow.v}, target);
        Halide::Pipeline p({flow.u, flow.v});
        p.compile_jit(solder::make_target(target));
        for (auto [W, H] : std::vector<std::pair<int, int>>{{70, 45}, {131, 67}}) {
            SCOPED_TRACE(std::to_string(W) + " x " + std::to_string(H));
            auto f0 = solder::testing::random_buffer<float>({W, H}, 41, 0, 1);
            auto f1 = solder::testing::random_buffer<float>({W, H}, 42, 0, 1);
            flow.f0.set(f0);
            flow.f1.set(f1);
            Halide::Buffer<float> u(W, H), v(W, H);
            p.realize({u, v}, solder::make_target(target));
            u.copy_to_host();
            v.copy_to_host();
            std::vector<float> ru, rv;
            flow_reference(f0, f1, ru, rv);
            EXPECT_TRUE(solder::testing::matches(
                u, [&](auto &q) { return ru[size_t(q[1] * W + q[0])]; }, 1e-4))
                << plan;
            EXPECT_TRUE(solder::testing::matches(
                v, [&](auto &q) { return rv[size_t(q[1] * W + q[0])]; }, 1e-4))
                << plan;
        }
    }
}

}  // namespace inline_copies_test
