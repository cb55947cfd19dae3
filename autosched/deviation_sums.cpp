#include "autosched/deviation_sums.h"

#include <map>
#include <optional>
#include <set>

#include "autosched/model/pipeline_funcs.h"

namespace solder::autosched {

using namespace Halide;
using namespace Halide::Internal;

namespace {

// A Func of the header's form, zero at first and summing `added` at its pure vars over `rvars`.
struct Summing {
    Function f;
    Expr added;
    std::vector<ReductionVariable> rvars;
};

std::optional<Summing> as_summing(const Function &f) {
    const std::optional<FoldedUpdate> fold = folded_update(f);
    if (!fold || fold->op != FoldedUpdate::Op::Add || !is_const_zero(fold->init)) return std::nullopt;
    if (!f.output_types()[0].is_float() || f.output_types()[0].bits() < 32) return std::nullopt;
    if (f.updates()[0].schedule().rvars().size() < 2) return std::nullopt;
    return Summing{f, fold->added, f.updates()[0].schedule().rvars()};
}

// `d * d` with d = e - m or m - e, e naming RVars and m none.
struct Squared {
    Expr e, m;
};

std::optional<Squared> as_squared_deviation(const Expr &added) {
    const Mul *mul = added.as<Mul>();
    if (!mul || !equal(mul->a, mul->b)) return std::nullopt;
    const Sub *d = mul->a.as<Sub>();
    if (!d) return std::nullopt;
    if (uses_rvar(d->a) && !uses_rvar(d->b)) return Squared{d->a, d->b};
    if (uses_rvar(d->b) && !uses_rvar(d->a)) return Squared{d->b, d->a};
    return std::nullopt;
}

// The Funcs `e` reads, directly or through others.
std::set<std::string> funcs_read(const Expr &e) {
    struct Calls : IRVisitor {
        std::map<std::string, Function> found;
        using IRVisitor::visit;
        void visit(const Call *c) override {
            IRVisitor::visit(c);
            if (c->call_type == Call::Halide && c->func.defined()) found.emplace(c->name, Function(c->func));
        }
    } calls;
    e.accept(&calls);
    std::set<std::string> names;
    for (auto &[name, f] : calls.found) {
        names.insert(name);
        for (auto &[n, g] : find_transitive_calls(f)) names.insert(n);
    }
    return names;
}

// Gives `target` the update `target(pure) = target(pure) + added`. (Built on a Func of the same
// pure vars, its reads of itself then made the target's, as Halide names the loops.)
void replace_update(Function target, const Expr &added) {
    std::vector<Var> pure;
    for (auto &a : target.args()) pure.emplace_back(a);
    Func holder(unique_name(target.name() + "_chunked"));
    holder(pure) = Tuple(target.values());
    holder(pure) = holder(pure) + added;
    Definition d = holder.function().update(0).get_copy();
    for (Expr &v : d.values()) v = calls_retargeted(v, holder.name(), target);
    target.update(0) = d;
}

// Rewrites the pair in chunks along RVar `c`: the whole RVar a chunk where `split` is 0, else
// chunks of `split` points (the last one partial where the RVar's extent is not a multiple).
DeviationSum rewrite(const Summing &dev, const Squared &sq, const Summing &sum, size_t c, int64_t split) {
    const auto &R = dev.rvars;
    const Type t = dev.f.output_types()[0];
    // The chunk Func's dims: every RVar but the chunk's, the chunk's index along it where it is
    // split, then the pure vars.
    std::vector<Var> args;
    std::map<std::string, Expr> to_chunk;
    const Expr length = split > 0 ? Expr(int(split)) : R[c].extent;
    RDom in_chunk(0, length, unique_name(dev.f.name() + "_in_chunk"));
    Expr start = R[c].min, index;
    for (size_t k = 0; k < R.size(); k++) {
        if (k == c) continue;
        args.emplace_back(unique_name(dev.f.name() + "_" + without_dollars(R[k].var) + "_at"));
        to_chunk[R[k].var] = args.back();
    }
    if (split > 0) {
        args.emplace_back(unique_name(dev.f.name() + "_" + without_dollars(R[c].var) + "_chunk"));
        index = args.back();
        start = R[c].min + index * length;
    }
    for (auto &a : dev.f.args()) args.emplace_back(a);
    std::map<std::string, Expr> to_first = to_chunk;
    to_first[R[c].var] = start;
    const Expr first = substitute(to_first, sq.e);
    // A partial last chunk reads its last point again past the end, and adds nothing for it.
    Expr inside = const_true();
    if (split > 0) {
        const Expr last = R[c].min + R[c].extent - 1;
        to_chunk[R[c].var] = min(start + in_chunk.x, last);
        inside = start + in_chunk.x <= last;
    } else {
        to_chunk[R[c].var] = R[c].min + in_chunk.x;
    }
    const Expr e = substitute(to_chunk, sq.e);

    // Each chunk's sums of its points' differences from its first point f and of their squares:
    // one walk, in a sum Halide can split.
    const Expr d = split > 0 ? select(inside, e - first, make_zero(t)) : e - first;
    Func chunks(unique_name(dev.f.name() + "_chunks"));
    if (split > 0) {
        // Split chunks keep their first point: loaded again by the merge, it would be a load
        // `split` points apart per chunk, whose footprint the planner prices as the whole input.
        chunks(args) = Tuple(make_zero(t), make_zero(t), first);
        chunks(args) = Tuple(chunks(args)[0] + d, chunks(args)[1] + d * d, chunks(args)[2]);
    } else {
        chunks(args) = Tuple(make_zero(t), make_zero(t));
        chunks(args) = Tuple(chunks(args)[0] + d, chunks(args)[1] + d * d);
    }

    // Both sums over the chunks: sum(e) = sum(d) + k f, and the chunk's own squared deviations
    // sum(d^2) - sum(d)^2 / k, plus k times its mean's squared distance from m. (Where the RVar
    // is a chunk whole, f is loaded again here: kept in the chunk Func as a third value, the
    // planner computed the deviations' sum per block of its reader's kernel, 142 against 88 us on
    // the H100 for group_norm, before the cost model's L2 term.)
    std::vector<Range> outer;
    for (size_t k = 0; k < R.size(); k++)
        if (k != c) outer.emplace_back(R[k].min, R[k].extent);
    if (split > 0) outer.emplace_back(0, (R[c].extent + length - 1) / length);
    RDom over(outer, unique_name(dev.f.name() + "_over_chunks"));
    std::map<std::string, Expr> to_over;
    std::vector<Expr> at;
    for (size_t k = 0; k + dev.f.args().size() < args.size(); k++) {
        at.push_back(over[int(k)]);
        to_over[args[k].name()] = over[int(k)];
    }
    for (auto &a : dev.f.args()) at.push_back(Var(a));
    const FuncRef chunk = chunks(at);
    const Expr k_points = split > 0 ? min(length, R[c].extent - substitute(to_over, index) * length) : length;
    const Expr points = cast(t, max(k_points, 1));
    const Expr chunk_sum = chunk[0] + points * (split > 0 ? chunk[2] : substitute(to_over, first));
    const Expr own = max(chunk[1] - chunk[0] * chunk[0] / points, make_zero(t));
    const Expr apart = chunk_sum / points - sq.m;
    replace_update(sum.f, chunk_sum);
    replace_update(dev.f, own + points * apart * apart);
    return {dev.f.name(), sum.f.name(), chunks.name(), split};
}

// The product of the RVars' extents at the estimates, RVar `skip`'s left out; -1 where one is not
// known.
int64_t product_at_estimates(const std::vector<ReductionVariable> &rvars, const AtEstimates &estimates, size_t skip) {
    int64_t product = 1;
    for (size_t k = 0; k < rvars.size(); k++) {
        if (k == skip) continue;
        const int64_t e = estimates.extent(rvars[k].extent);
        if (e < 0) return -1;
        product *= e;
    }
    return product;
}

}  // namespace

std::vector<DeviationSum> rewrite_deviation_sums(const std::vector<Func> &outputs, const AtEstimates &estimates) {
    std::vector<Summing> summing;
    for (const Function &f : pipeline_functions(outputs))
        if (auto s = as_summing(f)) summing.push_back(*s);
    std::vector<DeviationSum> done;
    std::set<std::string> taken;
    for (const Summing &dev : summing) {
        const auto sq = as_squared_deviation(dev.added);
        if (!sq || taken.count(dev.f.name())) continue;
        const std::set<std::string> read = funcs_read(sq->m);
        for (const Summing &sum : summing) {
            if (sum.f.same_as(dev.f) || taken.count(sum.f.name()) || !read.count(sum.f.name())) continue;
            if (!same_first_update_domain(dev.f, sum.f) || !equal(sum.added, sq->e)) continue;
            // Chunks along the second RVar: the chunk Func's threads then run along the first,
            // reading neighbours.
            const size_t c = 1;
            const int64_t points = estimates.extent(dev.rvars[c].extent);
            if (points < kMinChunkPoints) continue;
            const int64_t per_result = product_at_estimates(dev.rvars, estimates, dev.rvars.size());
            if (per_result < kMinPointsPerResult) continue;
            const int64_t outer = product_at_estimates(dev.rvars, estimates, c);
            const int64_t results = estimates.points(dev.f.name());
            if (outer < 0 || results < 0) continue;
            // The RVar whole a chunk where it is short enough; else the longest chunks, halving
            // from kMaxChunkPoints, that still make kSplitChunks.
            // (Chunks of `k` points each, 0: the RVar whole.)
            const auto chunks = [&](int64_t k) { return outer * results * (k > 0 ? (points + k - 1) / k : 1); };
            int64_t split = 0;
            if (points > kMaxChunkPoints) {
                split = kMaxChunkPoints;
                while (split / 2 >= kMinChunkPoints && chunks(split) < kSplitChunks) split /= 2;
            }
            if (chunks(split) < kMinChunks) continue;
            done.push_back(rewrite(dev, *sq, sum, c, split));
            taken.insert(dev.f.name());
            taken.insert(sum.f.name());
            break;
        }
    }
    return done;
}

std::string deviation_sum_reason(const DeviationSum &d) {
    return "a sum of squared deviations from a mean of the same points (" + d.sum +
           "), which reads the points again after the mean: both are summed in chunks along one RVar" +
           (d.split > 0 ? " (of " + std::to_string(d.split) + " points, the last partial where they do not divide it)"
                        : std::string()) +
           ", each chunk's sums of its points' differences from its first point and of their squares in one walk (" +
           d.chunks +
           "), then merged (each chunk's own deviations plus its points times its mean's squared distance from the "
           "mean)";
}

}  // namespace solder::autosched
