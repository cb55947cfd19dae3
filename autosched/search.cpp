#include "autosched/search.h"

#include "autosched/model/cost_model.h"
#include "autosched/model/inline_copies.h"
#include "schedules/registry.h"
#include "schedules/row/shared_reductions.h"

#include <chrono>
#include <cstdio>
#include <stdexcept>

namespace solder::autosched {

namespace {

using Clock = std::chrono::steady_clock;

// What the local search may spend: work (see local_improvement) and, as a safety net, time.
struct Budget {
    const FuncGraph &g;
    Clock::time_point deadline;
    int64_t limit;
    int64_t funcs = 0;  // the Funcs of every partition evaluated
    int64_t queries_before = g.region_queries();
    int64_t work() const { return funcs + g.region_queries() - queries_before; }
};
struct OutOfTime {};  // a greedy pass given a budget ran past its deadline
struct OutOfWork {};  // or spent its work

// Stores, one at a time, the Func each broken rule names. Ends legal: at worst every Func is a root.
Partition greedy(const FuncGraph &g, const PlannerOptions &opt, std::vector<bool> root, std::map<int, std::string> &why,
                 KernelCache *cache, MendRules rules = {}, Budget *budget = nullptr) {
    for (size_t iter = 0; iter <= g.nodes.size(); iter++) {
        if (budget) {
            if (budget->work() >= budget->limit) throw OutOfWork{};
            if (Clock::now() > budget->deadline) throw OutOfTime{};
            budget->funcs += int64_t(g.nodes.size());
        }
        Partition p = evaluate_partition(g, opt, root, cache, rules);
        if (p.legal()) return p;
        root[p.violation] = true;
        why[p.violation] = p.violation_reason;
    }
    throw std::logic_error("Solder planner: the greedy pass did not converge");
}

// A lower bound on the estimated time of any partition that keeps the roots chosen so far: every
// input is read at least once, every root written once and, unless only the user reads it, read
// back at least once; every root is a launch. (Each kernel's time is at least its bytes' time.)
struct Bound {
    const FuncGraph &g;
    const PlannerOptions &opt;
    double base_us = 0;
    explicit Bound(const FuncGraph &g, const PlannerOptions &o) : g(g), opt(o) {
        for (auto &n : g.nodes)
            if (n.is_input) base_us += CostModel(opt.device).stream_us(n.bytes(), 0);
    }
    double root_us(int r) const {
        const FuncNode &n = g.nodes[r];
        int64_t bytes = n.bytes() * (n.out_edges.empty() ? 1 : 2);
        return CostModel(opt.device).stream_us(bytes, 1);
    }
};

struct BranchAndBound {
    const FuncGraph &g;
    const PlannerOptions &opt;
    Bound bound;
    std::vector<int> order;  // optional roots, consumers first
    std::vector<bool> root;
    std::vector<std::set<int>> groups;
    Partition best;
    double best_us;
    int64_t evaluated = 0, max_evaluations;
    Clock::time_point deadline;
    bool out_of_budget = false, out_of_time = false;
    KernelCache &cache;

    BranchAndBound(const FuncGraph &g, const PlannerOptions &opt, const std::vector<bool> &forced, Partition incumbent,
                   KernelCache &cache)
        : g(g), opt(opt), bound(g, opt), root(forced), best(std::move(incumbent)), cache(cache) {
        best_us = best.est_us;
        max_evaluations = opt.search_max_evaluations;
        deadline = Clock::now() + std::chrono::milliseconds(opt.time_budget_ms);
        for (int i = int(g.nodes.size()) - 1; i >= 0; i--)
            if (!g.nodes[i].is_input && !forced[i]) order.push_back(i);
        groups.resize(g.nodes.size());
        // Forced roots' groups are known from the start; others are filled in as they are decided.
        for (size_t i = 0; i < g.nodes.size(); i++)
            if (forced[i]) groups[i] = {int(i)};
    }

    void group_of(int i) { groups[i] = kernel_group_of(g, root, groups, i, shares_reductions(opt)); }

    void run(size_t depth, double lb) {
        if (out_of_budget || out_of_time) return;
        if (lb >= best_us * (1 - 1e-9)) return;
        if (depth == order.size()) {
            if (++evaluated > max_evaluations) {
                out_of_budget = true;
                return;
            }
            if ((evaluated & 63) == 0 && Clock::now() > deadline) out_of_time = true;
            Partition p = evaluate_partition(g, opt, root, &cache);
            if (p.legal() && p.est_us < best_us * (1 - 1e-9)) best = p, best_us = p.est_us;
            return;
        }
        int i = order[depth];
        // Not a root first (fusion is the usual winner), unless a rule already forces storing it.
        root[i] = false;
        group_of(i);
        if (storage_rule(g, opt, root, groups, i).empty()) run(depth + 1, lb);
        root[i] = true;
        group_of(i);
        run(depth + 1, lb + bound.root_us(i));
        root[i] = false;
    }
};

// Beyond the exact search's size: flip one optional Func at a time (root <-> fused), mend what the
// flip breaks with the greedy rules, keep it if the estimate drops; repeat until no flip helps or
// the work budget is spent. The budget counts the Funcs of every partition evaluated and every
// region its kernels ask of the graph (what an evaluation's time is in proportion to: a flip that
// makes one kernel of hundreds of Funcs asks millions), not time, so that the plan is the same on
// any machine at any load. Deterministic: candidates in a fixed order.
Partition local_improvement(const FuncGraph &g, const PlannerOptions &opt, const std::vector<int> &order,
                            Partition best, MendRules mend, KernelCache &cache, Budget &budget, int64_t &evaluated,
                            bool &out_of_budget, bool &out_of_time) {
    for (bool improved = true; improved && !out_of_budget && !out_of_time;) {
        improved = false;
        for (int i : order) {
            if (evaluated >= opt.search_max_evaluations) {
                out_of_budget = true;
                break;
            }
            std::vector<bool> root = best.root;
            root[i] = !root[i];
            std::map<int, std::string> ignored;
            Partition p;
            try {
                p = greedy(g, opt, root, ignored, &cache, mend, &budget);
            } catch (const std::logic_error &) {
                continue;
            } catch (const OutOfWork &) {
                out_of_budget = true;
                break;
            } catch (const OutOfTime &) {
                out_of_time = true;
                break;
            }
            evaluated++;
            if (p.est_us < best.est_us * (1 - 1e-9)) best = p, improved = true;
        }
    }
    return best;
}

// Stores, in place of a stored Func whose one reader reads it at its own points and holds fewer
// bytes (a 32-bit sum cast to 16 bits), that reader: the Func is then computed in the reader's
// kernel, and half the bytes cross memory. Each swap is kept where the estimate drops. (The
// greedy start stores the Func a rule names, here the sum a stencil would stage; and the exact
// search, walking a long chain depth first, seldom reaches such a pair flipped together.)
Partition narrow_stores(const FuncGraph &g, const PlannerOptions &opt, const std::vector<bool> &forced, Partition best,
                        KernelCache &cache, int64_t &evaluated) {
    for (size_t r = 0; r < g.nodes.size(); r++) {
        const FuncNode &R = g.nodes[r];
        if (!best.root[r] || forced[r] || R.is_input || R.out_edges.size() != 1) continue;
        const FuncEdge &E = g.edges[size_t(R.out_edges[0])];
        const FuncNode &C = g.nodes[size_t(E.consumer)];
        if (best.root[size_t(E.consumer)] || C.is_input || E.access != Access::Pointwise || C.updates != 0 ||
            C.bytes() >= R.bytes())
            continue;
        std::vector<bool> root = best.root;
        root[r] = false, root[size_t(E.consumer)] = true;
        Partition p = evaluate_partition(g, opt, root, &cache);
        evaluated++;
        if (p.legal() && p.est_us < best.est_us * (1 - 1e-9)) best = std::move(p);
    }
    return best;
}

// The Funcs the search decides (neither inputs nor forced roots; `free_outputs` not forced),
// consumers first.
std::vector<int> optional_roots(const FuncGraph &g, const PlannerOptions &opt, const std::set<int> &free_outputs) {
    std::map<int, std::string> ignored;
    std::vector<bool> forced = forced_roots(g, opt, ignored);
    for (int s : free_outputs) forced[size_t(s)] = false;
    std::vector<int> order;
    for (int i = int(g.nodes.size()) - 1; i >= 0; i--)
        if (!g.nodes[size_t(i)].is_input && !forced[size_t(i)]) order.push_back(i);
    return order;
}

// Whether some Func is a reduction with pure dims (what a block reduction roots).
bool has_pure_reduction(const FuncGraph &g) {
    for (const FuncNode &n : g.nodes)
        if (!n.is_input && n.is_reduction() && !n.dims.empty()) return true;
    return false;
}

std::string us(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.3f us", v);
    return b;
}

// Why each stored Func of a searched partition is stored: the rule fusing it would break, or the cost.
std::map<int, std::string> reasons_for_roots(const FuncGraph &g, const PlannerOptions &opt, const Partition &best,
                                             KernelCache &cache) {
    std::map<int, std::string> why, forced_why;
    forced_roots(g, opt, forced_why);
    for (size_t i = 0; i < g.nodes.size(); i++) {
        if (!best.root[i] || g.nodes[i].is_output) continue;
        if (forced_why.count(int(i))) {
            why[int(i)] = forced_why[int(i)];
            continue;
        }
        std::vector<bool> without = best.root;
        without[i] = false;
        Partition p = evaluate_partition(g, opt, without, &cache);
        if (!p.legal())
            why[int(i)] = p.violation == int(i) ? p.violation_reason
                                                : "fusing it would force storing " + g.nodes[p.violation].name + " (" +
                                                      p.violation_reason + ")";
        else
            why[int(i)] = "storing it is cheaper under the cost model: " + us(best.est_us) + " vs " + us(p.est_us) +
                          " with it fused";
    }
    return why;
}

SearchResult search_at(const FuncGraph &g, const PlannerOptions &opt, const std::set<int> &free_outputs) {
    SearchResult r;
    KernelCache cache;
    std::vector<bool> forced = forced_roots(g, opt, r.why);
    for (int s : free_outputs) forced[size_t(s)] = false;
    std::map<int, std::string> capped_why = r.why;
    r.best = greedy(g, opt, forced, r.why, &cache);
    // The greedy pass again, storing what inlining would recompute many times over (a long chain of
    // stencils ending in a reduction otherwise starts as one kernel recomputing the whole chain,
    // which no local step mends in the time it has). The cheaper start is the exact search's
    // incumbent; local improvement starts from both.
    // Each start's flips are mended by the rules it was made with: the capped start's name the Func
    // where a kernel's Funcs fill the chip, so that mending a long chain takes a step per kernel.
    const MendRules capped_rules{true, true};
    Partition capped = greedy(g, opt, forced, capped_why, &cache, capped_rules);
    std::vector<std::pair<Partition, MendRules>> starts{{r.best, MendRules{}}};
    if (capped.root != r.best.root) starts.emplace_back(capped, capped_rules);
    if (capped.est_us < r.best.est_us) {
        std::swap(starts.front(), starts.back());
        r.best = std::move(capped), r.why = std::move(capped_why);
    }
    r.greedy_us = r.best.est_us;
    if (!opt.exact_search) {
        r.summary = "greedy (the exact search is disabled by option)";
        return r;
    }
    BranchAndBound bb(g, opt, forced, r.best, cache);
    std::string how;
    if (int(bb.order.size()) <= opt.exact_max_free) {
        double lb = bb.bound.base_us;
        for (size_t i = 0; i < g.nodes.size(); i++)
            if (forced[i]) lb += bb.bound.root_us(int(i));
        bb.run(0, lb);
        r.evaluated = bb.evaluated;
        r.proved_optimal = !bb.out_of_budget && !bb.out_of_time;
        how = r.proved_optimal ? "exact: least estimated time under the cost model"
              : bb.out_of_time ? "exact search stopped at the time budget"
                               : "exact search stopped at its evaluation budget";
    } else {
        bool out_of_budget = false, out_of_time = false;
        // Each start gets its share of the time budget and of the work the starts before it left;
        // the best result wins.
        const auto share = std::chrono::milliseconds(opt.time_budget_ms / int64_t(starts.size()));
        int64_t work_left = opt.search_max_work;
        for (size_t k = 0; k < starts.size(); k++) {
            auto &[start, mend] = starts[k];
            bool budget = false, time = false;
            Budget b{g, Clock::now() + share, work_left / int64_t(starts.size() - k)};
            Partition p = local_improvement(g, opt, bb.order, start, mend, cache, b, r.evaluated, budget, time);
            work_left -= b.work();
            r.work += b.work();
            out_of_budget |= budget, out_of_time |= time;
            if (p.est_us < bb.best_us * (1 - 1e-9)) bb.best = std::move(p), bb.best_us = bb.best.est_us;
        }
        how = std::to_string(bb.order.size()) + " optional roots, more than the exact search takes (" +
              std::to_string(opt.exact_max_free) + "): greedy plus local improvement" +
              (out_of_time     ? ", stopped at the time budget (" + std::to_string(opt.time_budget_ms) + " ms)"
               : out_of_budget ? ", stopped at its work budget"
                               : "");
    }
    if (!r.proved_optimal) {
        bb.best = narrow_stores(g, opt, forced, std::move(bb.best), cache, r.evaluated);
        bb.best_us = bb.best.est_us;
    }
    bool improved = bb.best_us < r.greedy_us * (1 - 1e-9);
    if (improved) {
        r.best = bb.best;
        r.why = reasons_for_roots(g, opt, r.best, cache);
    }
    r.summary = how + " (" + std::to_string(r.evaluated) + " partitions costed" +
                (improved ? "; improves the greedy plan from " + us(r.greedy_us) + " to " + us(r.best.est_us)
                          : "; the greedy plan is kept") +
                ")";
    return r;
}

// Beyond the exact search's size, where some reduction could take a block reduction computing its
// producers inline (PlannerOptions::reduction_members): the search first without those kernels,
// then local improvement with them from its plan, on the work and time it left. A flip that makes
// a reduction and its producers one kernel improves on a poor greedy start early, and the
// first-improvement walk then seldom reaches row kernels that compute several reductions per block
// (nvfuser_2146's four row sums: 243 us modelled, 369 with such kernels taken first). The second
// step never raises the estimate: each of those kernels is taken only where it is cheaper than
// the template that builds the same Funcs without it (KernelChoice::compare_later).
SearchResult search_then_members(const FuncGraph &g, const PlannerOptions &opt, const std::set<int> &free_outputs) {
    const auto deadline = Clock::now() + std::chrono::milliseconds(opt.time_budget_ms);
    PlannerOptions narrow = opt;
    narrow.reduction_members = false;
    SearchResult r = search_at(g, narrow, free_outputs);
    KernelCache cache;
    std::map<int, std::string> ignored;
    Partition start = greedy(g, opt, r.best.root, ignored, &cache);
    Partition best = start;
    int64_t evaluated = 0;
    if (const int64_t left = opt.search_max_work - r.work; left > 0) {
        Budget b{g, deadline, left};
        bool out_of_budget = false, out_of_time = false;
        best = local_improvement(g, opt, optional_roots(g, opt, free_outputs), start, MendRules{}, cache, b, evaluated,
                                 out_of_budget, out_of_time);
    }
    r.evaluated += evaluated;
    const bool moved = best.root != r.best.root || best.est_us != r.best.est_us;
    if (moved) {
        r.summary += "; then with block reductions computing their producers inline (" + std::to_string(evaluated) +
                     " partitions costed): " + us(r.best.est_us) + " -> " + us(best.est_us);
        r.best = std::move(best);
        r.why = reasons_for_roots(g, opt, r.best, cache);
    }
    return r;
}

SearchResult search_unlimited(const FuncGraph &g, const PlannerOptions &opt, const std::set<int> &free_outputs) {
    if (opt.reduction_members && opt.exact_search && has_pure_reduction(g) &&
        int(optional_roots(g, opt, free_outputs).size()) > opt.exact_max_free)
        return search_then_members(g, opt, free_outputs);
    return search_at(g, opt, free_outputs);
}

}  // namespace

double most_inline_ops(const FuncGraph &g, const PlannerOptions &opt, const Partition &p) {
    double most = 0;
    for (const auto &[r, kc] : p.choice) {
        std::vector<bool> inside(g.nodes.size(), false);
        for (int m : kc.members) inside[size_t(m)] = true;
        const KernelContext c(g, opt, r, kc.members);
        most = std::max(most, inline_copies(g, r, inside, kernel_template(kc.kind).computed_apart(c)).total);
    }
    return most;
}

SearchResult search_roots(const FuncGraph &g, const PlannerOptions &opt, const std::set<int> &free_outputs) {
    SearchResult r = search_unlimited(g, opt, free_outputs);
    if (opt.max_inline_ops > 0) return r;
    // A kernel inlining more than Halide compiles in reasonable time: searched again with such
    // kernels refused. (Only then: refused throughout, they would change the paths other
    // pipelines' searches take to plans within the limit.)
    const double most = most_inline_ops(g, opt, r.best);
    if (most <= kMaxInlineOps) return r;
    PlannerOptions limited = opt;
    limited.max_inline_ops = kMaxInlineOps;
    SearchResult l = search_unlimited(g, limited, free_outputs);
    char ops[32];
    std::snprintf(ops, sizeof ops, "%.0f", most);
    l.summary += std::string("; searched again: a kernel of the first plan inlined ") + ops +
                 " operations per point, more than " + std::to_string(int64_t(kMaxInlineOps)) +
                 " (Halide's compile time follows them)";
    l.evaluated += r.evaluated;
    return l;
}

Partition brute_force_roots(const FuncGraph &g, const PlannerOptions &opt, int max_free) {
    std::map<int, std::string> why;
    std::vector<bool> forced = forced_roots(g, opt, why);
    std::vector<int> free;
    for (size_t i = 0; i < g.nodes.size(); i++)
        if (!g.nodes[i].is_input && !forced[i]) free.push_back(int(i));
    if (int(free.size()) > max_free)
        throw std::runtime_error("brute_force_roots: " + std::to_string(free.size()) + " optional roots, more than " +
                                 std::to_string(max_free));
    Partition best;
    bool found = false;
    for (uint64_t mask = 0; mask < (uint64_t(1) << free.size()); mask++) {
        std::vector<bool> root = forced;
        for (size_t b = 0; b < free.size(); b++)
            if (mask >> b & 1) root[free[b]] = true;
        Partition p = evaluate_partition(g, opt, root);
        if (p.legal() && (!found || p.est_us < best.est_us)) best = p, found = true;
    }
    return best;
}

}  // namespace solder::autosched
