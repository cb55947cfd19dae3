// The root search (autosched/search.h): on graphs small enough to try every subset of optional roots,
// the branch and bound finds the same least estimate as brute force and says it proved it; it never
// does worse than the greedy pass; it is deterministic; the bundled apps within its size are solved
// exactly; a stored sum whose one reader casts it narrower is stored after the cast.
#include <gtest/gtest.h>

#include <regex>

#include "apps/app_pipeline.h"
#include "autosched/planner.h"
#include "autosched/search.h"
#include "bench/plan_time/plan_time_pipelines.h"
#include "runtime/halide_error.h"
#include "support/random_graphs.h"

using namespace solder;
using namespace solder::autosched;

namespace {

FuncGraph random_func_graph(lang::Graph &g, uint64_t seed) {
    solder::testing::RandomGraph rg = solder::testing::make_random_graph(g, seed);
    std::vector<Halide::Func> outs;
    for (auto &t : rg.outputs) outs.push_back(t.func);
    return with_halide_errors("analysis", [&] { return FuncGraph::build(outs); });
}

int optional_roots(const FuncGraph &g, const PlannerOptions &opt) {
    std::map<int, std::string> why;
    auto forced = forced_roots(g, opt, why);
    int n = 0;
    for (size_t i = 0; i < g.nodes.size(); i++) n += !g.nodes[i].is_input && !forced[i];
    return n;
}

}  // namespace

TEST(Search, ExactMatchesBruteForceOnSmallRandomGraphs) {
    int compared = 0, nontrivial = 0;
    for (uint64_t seed = 1; seed <= 60; seed++) {
        for (bool remat : {true, false}) {
            lang::Graph lg;
            FuncGraph g = random_func_graph(lg, seed);
            PlannerOptions opt;
            opt.remat = remat;
            int free = optional_roots(g, opt);
            if (free > 14) continue;
            SearchResult r = search_roots(g, opt);
            autosched::Partition brute = brute_force_roots(g, opt, 14);
            ASSERT_TRUE(r.best.legal()) << "seed " << seed;
            EXPECT_TRUE(r.proved_optimal) << "seed " << seed << ": " << r.summary;
            EXPECT_NEAR(r.best.est_us, brute.est_us, 1e-9 * brute.est_us) << "seed " << seed << ": " << r.summary;
            EXPECT_LE(r.best.est_us, r.greedy_us * (1 + 1e-12)) << "seed " << seed;
            compared++;
            nontrivial += free >= 4;
        }
    }
    // The check is only worth something if it ran on real choices.
    EXPECT_GE(compared, 60);
    EXPECT_GE(nontrivial, 20);
}

TEST(Search, PlansAreDeterministic) {
    for (uint64_t seed : {3u, 17u, 29u}) {
        std::string a, b;
        for (std::string *out : {&a, &b}) {
            lang::Graph lg;
            FuncGraph g = random_func_graph(lg, seed);
            *out = plan_pipeline(g, PlannerOptions{}, "random").to_json();
            // Halide numbers the second copy's Func names ("mul_16$15" for "mul_16$14"): drop that.
            *out = std::regex_replace(*out, std::regex("\\$[0-9]+"), "");
        }
        EXPECT_EQ(a, b) << "seed " << seed;
    }
}

TEST(Search, TheLocalSearchStopsAtItsWorkBudgetNotTheClock) {
    // A 300-Func chain has 313 optional roots, beyond the exact search. Given little work, the local
    // search stops at that budget, at the same partition in every run and on any machine: the
    // budget counts evaluated Funcs and region queries, not milliseconds. (Before, it stopped at
    // the clock, and a loaded machine got another plan.)
    std::string first;
    int64_t first_evaluated = -1;
    for (int run = 0; run < 2; run++) {
        FuncGraph g = FuncGraph::build(plan_time_chain(300).outputs);
        PlannerOptions opt;
        opt.time_budget_ms = 600 * 1000;
        opt.search_max_work = 300000;
        SearchResult r = search_roots(g, opt);
        EXPECT_NE(r.summary.find("stopped at its work budget"), std::string::npos) << r.summary;
        std::string roots;
        for (size_t i = 0; i < g.nodes.size(); i++) roots += r.best.root[i] ? '1' : '0';
        if (run == 0) {
            first = roots, first_evaluated = r.evaluated;
            EXPECT_LT(r.best.est_us, r.greedy_us) << r.summary;
        } else {
            EXPECT_EQ(roots, first);
            EXPECT_EQ(r.evaluated, first_evaluated) << r.summary;
        }
    }
    // The default budget lets the same search run until no flip helps.
    FuncGraph g = FuncGraph::build(plan_time_chain(300).outputs);
    PlannerOptions opt;
    opt.time_budget_ms = 600 * 1000;
    SearchResult r = search_roots(g, opt);
    EXPECT_EQ(r.summary.find("budget"), std::string::npos) << r.summary;
}

TEST(Search, BundledAppsWithinItsSizeAreSolvedExactly) {
    for (const AppSpec &app : all_app_specs()) {
        BuiltPipeline p = build_app_pipeline(app, AppSize::Full);
        FuncGraph g = FuncGraph::build(p.outputs);
        PlannerOptions opt;
        // Solved within the search's evaluation budget: its wall-clock safety net is lifted, since
        // a loaded machine or a sanitizer build may take longer than the default second.
        opt.time_budget_ms = 600 * 1000;
        SearchResult r = search_roots(g, opt);
        if (optional_roots(g, opt) <= opt.exact_max_free)
            EXPECT_TRUE(r.proved_optimal) << app.name << ": " << r.summary;
        else
            EXPECT_NE(r.summary.find("local improvement"), std::string::npos) << app.name << ": " << r.summary;
    }
}

TEST(Search, TheExactSearchCanBeTurnedOff) {
    lang::Graph lg;
    FuncGraph g = random_func_graph(lg, 5);
    PlannerOptions opt;
    opt.exact_search = false;
    SearchResult r = search_roots(g, opt);
    EXPECT_FALSE(r.proved_optimal);
    EXPECT_EQ(r.evaluated, 0);
    EXPECT_NEAR(r.best.est_us, r.greedy_us, 1e-12);
}

TEST(Search, AnOverfullKernelIsCutWhereItsFuncsFillTheChip) {
    // Nodes 2, 5 and 7 on chip (7 nearest the root): 20 + 30 passes 45 at node 5, the largest is 2.
    KernelChoice kc;
    EXPECT_EQ(total_naming_offender({{2, 40}, {7, 20}, {5, 30}}, 45, kc), 90);
    EXPECT_EQ(kc.cut_offender, 5);
    EXPECT_EQ(kc.offender, 2);
    EXPECT_EQ(kc.offender_bytes, 40);
    KernelChoice fits;
    EXPECT_EQ(total_naming_offender({{2, 10}, {7, 20}}, 45, fits), 30);
    EXPECT_EQ(fits.cut_offender, -1);
}

TEST(Search, TheGreedyStartDoesNotInlineALongStencilChain) {
    // Fusing every Func breaks no rule here: a row kernel computes the row sums per block and would
    // inline the whole chain, recomputing it at every tap of every tap (2^66 times at its far end).
    // The greedy pass that stores what inlining recomputes more than kGreedyRecompute times starts
    // the search far lower.
    // (solder-plan-time's chain: pointwise stages, 2-tap stencils, a row's mean every 50 stages.)
    FuncGraph g = FuncGraph::build(plan_time_chain(100).outputs);
    PlannerOptions opt;
    opt.exact_search = false;
    SearchResult r = search_roots(g, opt);
    std::vector<bool> all_fused(g.nodes.size(), false);
    for (size_t i = 0; i < g.nodes.size(); i++) all_fused[i] = g.nodes[i].is_output;
    autosched::Partition one = evaluate_partition(g, opt, all_fused);
    ASSERT_TRUE(one.legal());
    EXPECT_LT(r.greedy_us * 100, one.est_us) << r.summary;
    EXPECT_GT(r.best.choice.size(), 5u);
    // Each of its kernels recomputes nothing more than the cap allows.
    for (auto &[root, kc] : r.best.choice) EXPECT_LT(kc.recompute_offender, 0) << g.nodes[size_t(root)].name;
}

TEST(Search, AStoredSumIsStoredAfterItsNarrowingCast) {
    // Ten 5 x 5 averages of 16-bit pixels, each a 32-bit sum cast back to 16 bits: too many Funcs
    // for the exact search to finish, and the greedy start stores each sum (the Func a stencil
    // would stage). Storing each cast instead, the sum computed in its kernel, moves half the bytes.
    Halide::ImageParam in(Halide::UInt(16), 2, "in");
    Halide::Var x("x"), y("y");
    Halide::RDom w(-2, 5, -2, 5, "w");
    Halide::Func prev = Halide::BoundaryConditions::repeat_edge(in);
    for (int i = 0; i < 10; i++) {
        Halide::Func s("avg" + std::to_string(i));
        s(x, y) = Halide::cast<uint16_t>(Halide::sum(Halide::cast<uint32_t>(prev(x + w.x, y + w.y))) / 25);
        prev = s;
    }
    in.set_estimates({{0, 2560}, {0, 1536}});
    prev.set_estimates({{0, 2560}, {0, 1536}});
    FuncGraph g = FuncGraph::build({prev});
    PlannerOptions opt;
    opt.time_budget_ms = 600 * 1000;  // (the evaluation budget stops the exact search, not the clock)
    // (With window_tiles, each sum's window of the cast before it takes stencil tiles, two
    // averages a kernel, and the exact search finishes: the plan this test is about is the one
    // without.)
    opt.window_tiles = false;
    SearchResult r = search_roots(g, opt);
    ASSERT_FALSE(r.proved_optimal) << r.summary;
    int stored = 0;
    for (size_t i = 0; i < g.nodes.size(); i++) {
        if (!r.best.root[i] || g.nodes[i].is_output) continue;
        stored++;
        EXPECT_EQ(g.nodes[i].elem_bytes, 2) << g.nodes[i].name << " stored: " << r.summary;
    }
    EXPECT_EQ(stored, 9) << r.summary;
    EXPECT_LT(r.best.est_us, r.greedy_us) << r.summary;
}

TEST(Search, RegionsAskedWhileTheGraphIsBuiltAreAskedAgainAfter) {
    // `a` reads the table at data-dependent points: the region it needs is the table's whole
    // region, which the graph knows only once every reader's need is summed ([0, 511], for `b`).
    // The memo of what each Func reads must not keep the answer it gave before (the table's own
    // [0, 255], the points its update writes).
    Halide::ImageParam idx(Halide::Int(32), 1, "ridx");
    Halide::Var x("x");
    Halide::RDom r(0, 256, "rr");
    Halide::Func t("rtable"), a("ra"), b("rb");
    t(x) = 0.0f;
    t(r) = Halide::cast<float>(r) * 2.0f;
    a(x) = t(idx(x));
    b(x) = t(x) + 1.0f;
    idx.set_estimates({{0, 1000}});
    a.set_estimates({{0, 1000}});
    b.set_estimates({{0, 512}});
    FuncGraph g = FuncGraph::build({a, b});
    const int ti = g.find("rtable"), ai = g.find("ra");
    ASSERT_GE(ti, 0);
    ASSERT_GE(ai, 0);
    ASSERT_EQ(g.nodes[size_t(ti)].region.size(), 1u);
    EXPECT_EQ(g.nodes[size_t(ti)].region[0].max, 511);
    const auto reg = g.regions_for(ai, g.nodes[size_t(ai)].region, std::vector<bool>(g.nodes.size(), false));
    ASSERT_EQ(reg[size_t(ti)].size(), 1u);
    EXPECT_EQ(reg[size_t(ti)][0].min, 0);
    EXPECT_EQ(reg[size_t(ti)][0].max, 511);
}
