#include "autosched/ordered_folds.h"

#include <optional>
#include <set>

#include "autosched/keep_better.h"
#include "autosched/model/func_graph.h"
#include "autosched/model/generic_reason.h"
#include "autosched/model/pipeline_funcs.h"

namespace solder::autosched {

using namespace Halide;
using namespace Halide::Internal;

namespace {

// Points per chunk aimed at, and the folds left as they are (at the estimates). The first cut
// reads the Func's own points, neighbours along a row sharing cache lines: 256 per chunk. Later
// cuts read the chunks' results, each step a load from L2 that the next step waits on: 32.
constexpr int64_t kChunkPoints = 256, kLaterChunkPoints = 32;
constexpr int64_t kLeastCutPoints = 1024, kLeastLaterCutPoints = 64;
constexpr int kMostCuts = 5;
// Folds with this many results or more are left as they are: one thread per result already fills
// the GPU (132 SMs x 2048 threads is 270336; half of that and more is enough).
constexpr int64_t kManyResults = 65536;

// A fold in the form the header gives: keep(i) = select(cond, news[i], f(..)[i]).
struct Fold : KeepBetter {
    Function f;
    std::vector<ReductionVariable> rvars;
};

// The comparison of a new value `e` against the current `own`, as the fold makes it.
Expr better(const Fold &fold, const Expr &e, const Expr &own) { return fold.greater ? e > own : e < own; }

std::optional<Fold> as_fold(const Function &f) {
    if (f.has_extern_definition() || f.updates().size() != 1) return std::nullopt;
    const Definition &u = f.updates()[0];
    if (u.values().size() < 2 || !u.specializations().empty() || !f.definition().specializations().empty())
        return std::nullopt;
    if (u.predicate().defined() && !is_const_one(u.predicate())) return std::nullopt;
    if (u.schedule().rvars().empty() || !writes_pure_vars_in_order(f, u)) return std::nullopt;
    std::vector<Expr> here;
    for (auto &a : f.args()) here.push_back(Variable::make(Int(32), a));
    auto k = keep_better_update(f, u, here);
    if (!k) return std::nullopt;
    Fold fold;
    static_cast<KeepBetter &>(fold) = *k;
    fold.f = f;
    fold.rvars = u.schedule().rvars();
    return fold;
}

// Where to cut: the innermost RVar `dim` at which the points inside reach kChunkPoints, and the
// `factor` of its points per chunk.
struct Cut {
    int dim = -1;
    int64_t factor = 1, points = 0;
};

std::optional<Cut> choose_cut(const std::vector<int64_t> &extents, bool first) {
    const int64_t least = first ? kLeastCutPoints : kLeastLaterCutPoints;
    const int64_t aim = first ? kChunkPoints : kLaterChunkPoints;
    int64_t total = 1;
    for (int64_t e : extents) total *= e;
    if (total <= least) return std::nullopt;
    int64_t inner = 1;
    for (size_t d = 0; d < extents.size(); d++) {
        if (inner * extents[d] >= aim) {
            Cut c;
            c.dim = int(d);
            c.factor = std::min(extents[d], (aim + inner - 1) / inner);
            c.points = inner * c.factor;
            return c;
        }
        inner *= extents[d];
    }
    return std::nullopt;
}

// Cuts `fold` once at `cut`: a chunk Func folds each chunk, and the fold's own update becomes the
// fold of the chunks in order. Returns the chunk Func's name.
std::string cut_once(const Fold &fold, const Cut &cut) {
    const Function &f = fold.f;
    const auto &R = fold.rvars;
    const size_t n = R.size(), d = size_t(cut.dim);
    std::vector<Var> pure;
    for (auto &a : f.args()) pure.emplace_back(a);
    // The chunk's coordinates: its piece of RVar d, then each RVar outside it.
    std::vector<Var> at(pure);
    std::vector<Var> coords;
    for (size_t k = d; k < n; k++) coords.emplace_back(unique_name(k == d ? "chunk" : R[k].var + "_at"));
    at.insert(at.end(), coords.begin(), coords.end());

    // The chunk Func: the Func's initial values, then the same update over the chunk's points.
    std::vector<Range> inside;
    for (size_t k = 0; k < d; k++) inside.emplace_back(R[k].min, R[k].extent);
    inside.emplace_back(0, int(cut.factor));
    RDom r(inside, unique_name(f.name() + "_in_chunk"));
    Func chunks(unique_name(f.name() + "_chunks"));
    chunks(at) = Tuple(f.values());
    std::map<std::string, Expr> to;
    for (size_t k = 0; k < d; k++) to[R[k].var] = r[int(k)];
    // A chunk past the last point takes the last point again: the strict comparison keeps what it
    // kept (a point folded twice changes nothing).
    to[R[d].var] = min(R[d].min + coords[0] * int(cut.factor) + r[int(d)], R[d].min + R[d].extent - 1);
    for (size_t k = d + 1; k < n; k++) to[R[k].var] = coords[k - d];
    std::vector<Expr> values;
    const FuncRef own = chunks(at);
    const Expr won = better(fold, substitute(to, fold.news[size_t(fold.value_index)]), own[fold.value_index]);
    for (size_t i = 0; i < fold.news.size(); i++)
        values.push_back(select(won, substitute(to, fold.news[i]), own[int(i)]));
    chunks(at) = Tuple(values);

    // The Func's update: the chunks' results, folded in the chunks' order.
    std::vector<Range> over;
    over.emplace_back(0, (R[d].extent + int(cut.factor) - 1) / int(cut.factor));
    for (size_t k = d + 1; k < n; k++) over.emplace_back(R[k].min, R[k].extent);
    RDom rc(over, unique_name(f.name() + "_over_chunks"));
    const std::vector<Expr> here(pure.begin(), pure.end());
    std::vector<Expr> read(here);
    for (int k = 0; k < rc.dimensions(); k++) read.push_back(rc[k]);
    const FuncRef chunk = chunks(read);
    const Expr takes = better(fold, chunk[fold.value_index], Call::make(f, here, fold.value_index));
    std::vector<Expr> combined;
    for (int i = 0; i < int(fold.news.size()); i++) combined.push_back(select(takes, chunk[i], Call::make(f, here, i)));
    // (Built on a Func of the same pure vars, then moved into the Func: the definition, its RDom
    // and its loops' names as Halide makes them for an update.)
    Func holder(unique_name(f.name() + "_fold"));
    holder(pure) = Tuple(f.values());
    holder(pure) = Tuple(combined);
    Function target = f;
    target.update(0) = holder.function().update(0).get_copy();
    return chunks.name();
}

}  // namespace

std::vector<OrderedFold> cut_ordered_folds(const std::vector<Func> &outputs) {
    std::vector<Fold> folds;
    for (const Function &f : pipeline_functions(outputs))
        if (auto fold = as_fold(f)) folds.push_back(*fold);
    if (folds.empty()) return {};
    std::optional<FuncGraph> g;
    try {
        g = FuncGraph::build(outputs);
    } catch (const std::exception &) {
        return {};  // (the planner says why; nothing is cut)
    }
    std::vector<OrderedFold> cut;
    for (Fold &fold : folds) {
        const int n = g->find(fold.f.name());
        if (n < 0 || g->nodes[size_t(n)].points() >= kManyResults) continue;
        OrderedFold done;
        done.func = fold.f.name();
        for (int level = 0; level < kMostCuts; level++) {
            std::vector<int64_t> extents;
            for (auto &rv : fold.rvars) {
                auto e = as_const_int(g->at_estimates(rv.extent));
                if (!e || *e <= 0 || !is_const(g->at_estimates(rv.min))) break;
                extents.push_back(*e);
            }
            if (extents.size() != fold.rvars.size()) break;
            const auto c = choose_cut(extents, level == 0);
            if (!c) break;
            done.chunks.push_back(cut_once(fold, *c));
            if (level == 0) done.chunk_points = c->points;
            auto again = as_fold(fold.f);
            if (!again) break;
            fold = *again;
        }
        if (!done.chunks.empty()) cut.push_back(done);
    }
    return cut;
}

std::string ordered_fold_reason(const OrderedFold &f) {
    std::string names;
    for (auto &c : f.chunks) names += (names.empty() ? "" : ", ") + c;
    return "an arg-max or arg-min fold Halide cannot split (a select on a strict comparison): its points cut into "
           "chunks of about " +
           std::to_string(f.chunk_points) + " in their order, each chunk folded in parallel (" + names +
           "), then the chunks folded in order, so the first point of the extreme still wins";
}

void drop_provable_form_hints(Plan &plan, const std::vector<OrderedFold> &folds) {
    std::set<std::string> cut;
    for (auto &f : folds) {
        cut.insert(f.func);
        cut.insert(f.chunks.begin(), f.chunks.end());
    }
    const std::string hint = kProvableArgMaxHint;
    for (auto &e : plan.explanations) {
        if (!cut.count(e.producer) && !cut.count(e.consumer)) continue;
        for (size_t at = e.reason.find(hint); at != std::string::npos; at = e.reason.find(hint, at))
            e.reason.erase(at, hint.size());
    }
}

}  // namespace solder::autosched
