// The root search (autosched/search.h): on graphs small enough to try every subset of optional roots,
// the branch and bound finds the same least estimate as brute force and says it proved it; it never
// does worse than the greedy pass; it is deterministic; the bundled apps within its size are solved
// exactly.
#include <gtest/gtest.h>

#include <regex>

#include "apps/app_pipeline.h"
#include "autosched/planner.h"
#include "autosched/search.h"
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
            Partition brute = brute_force_roots(g, opt, 14);
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

TEST(Search, BundledAppsWithinItsSizeAreSolvedExactly) {
    for (const AppSpec &app : all_app_specs()) {
        BuiltPipeline p = build_app_pipeline(app, AppSize::Full);
        FuncGraph g = FuncGraph::build(p.outputs);
        PlannerOptions opt;
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
