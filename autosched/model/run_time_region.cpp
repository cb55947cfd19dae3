#include "autosched/model/run_time_region.h"

#include <map>
#include <set>

#include "autosched/model/pipeline_funcs.h"

namespace solder::autosched {
using namespace Halide;
using namespace Halide::Internal;

namespace {

using Intervals = std::vector<Interval>;

// Every definition of `f` (pure, updates, and the specializations inside each), with whether it
// is an update.
void each_definition(const Function &f, const std::function<void(const Definition &, bool)> &visit) {
    std::function<void(const Definition &, bool)> walk = [&](const Definition &d, bool update) {
        visit(d, update);
        for (const auto &s : d.specializations()) walk(s.definition, update);
    };
    walk(f.definition(), false);
    for (const auto &u : f.updates()) walk(u, true);
}

// `e` with the pure Funcs it calls (one pure definition, no update) put in, repeatedly: a bin moved
// into a Func of its own (autosched/computed_bins.h), or written as one, bounded as the expression
// it computes rather than by its type.
Expr with_pure_calls_inlined(const Expr &e) {
    struct Inline : IRMutator {
        int depth = 0;
        using IRMutator::visit;
        Expr visit(const Call *c) override {
            Expr x = IRMutator::visit(c);
            c = x.as<Call>();
            if (!c || c->call_type != Call::Halide || !c->func.defined() || depth >= 8) return x;
            const Function f(c->func);
            if (f.has_extern_definition() || !f.updates().empty() || !f.definition().specializations().empty() ||
                size_t(c->value_index) >= f.values().size() || c->args.size() != f.args().size())
                return x;
            std::map<std::string, Expr> at;
            for (size_t i = 0; i < c->args.size(); i++) at[f.args()[i]] = c->args[i];
            depth++;
            Expr body = mutate(substitute(at, f.values()[size_t(c->value_index)]));
            depth--;
            return body;
        }
    } v;
    return v.mutate(e);
}

// The most IR nodes a region's bound may have. A Func read through a chain of stencils (each level
// reading the one before at two offsets) has bounds that double in size at each level before they
// simplify: 20 levels took 5 s to analyse, 40 more than a minute. Larger ones are not told (such a
// chain is told up to about 10 levels).
constexpr int kMaxBoundNodes = 1000;

// Whether `e` has at most `most` nodes (counted as a tree, stopping past the limit).
bool small_bound(const Expr &e, int most = kMaxBoundNodes) {
    // (A mutator that changes nothing: its mutate sees every node of the tree, a shared one each
    // time it is reached, as simplify would.)
    struct Counter : IRMutator {
        int nodes = 0, most = 0;
        using IRMutator::mutate;
        Expr mutate(const Expr &x) override { return ++nodes <= most ? IRMutator::mutate(x) : x; }
    } c;
    c.most = most;
    c.mutate(e);
    return c.nodes <= most;
}

void add_union(Intervals &into, size_t d, const Interval &i) {
    if (into.size() <= d) into.resize(d + 1, Interval::nothing());
    into[d] = Interval::make_union(into[d], i);
}

struct RunTimeRegions {
    std::map<std::string, Function> env;
    std::set<std::string> outputs;
    std::map<std::string, std::vector<std::string>> readers;  // by Func, the Funcs that call it
    std::map<std::string, std::optional<Intervals>> known;
    std::set<std::string> open;  // (a guard: the call graph has no cycles)

    explicit RunTimeRegions(const std::vector<Function> &outs) {
        env = build_environment(outs);
        for (const auto &o : outs) outputs.insert(o.name());
        for (const auto &[name, f] : env)
            for (const auto &[callee, unused] : find_direct_calls(f))
                if (callee != name) readers[callee].push_back(name);
    }

    // The scope of a definition of `g` computed over `region`: its pure vars over it, its RVars
    // over their own bounds.
    static Scope<Interval> scope_of(const Function &g, const Definition &d, const Intervals &region) {
        Scope<Interval> scope;
        for (size_t a = 0; a < g.args().size() && a < region.size(); a++) scope.push(g.args()[a], region[a]);
        for (const auto &rv : d.schedule().rvars()) scope.push(rv.var, Interval(rv.min, rv.min + rv.extent - 1));
        return scope;
    }

    std::optional<Intervals> region(const std::string &name) {
        if (auto it = known.find(name); it != known.end()) return it->second;
        if (open.count(name)) return std::nullopt;
        open.insert(name);
        std::optional<Intervals> r = compute(name);
        open.erase(name);
        known[name] = r;
        return r;
    }

    std::optional<Intervals> compute(const std::string &name) {
        auto it = env.find(name);
        if (it == env.end()) return std::nullopt;
        const Function &f = it->second;
        if (!f.schedule().bounds().empty() || f.has_extern_definition()) return std::nullopt;
        const size_t dims = size_t(f.dimensions());
        Intervals r(dims, Interval::nothing());
        if (outputs.count(name)) {
            const Parameter &b = f.output_buffers()[0];
            for (size_t d = 0; d < dims; d++) {
                const Expr min = buffer_field(b, "min", int(d)), extent = buffer_field(b, "extent", int(d));
                add_union(r, d, Interval(min, min + extent - 1));
            }
        }
        // What each reader needs, over the region it is computed over.
        bool unbounded = false;
        for (const std::string &g_name : readers[name]) {
            const Function &g = env.at(g_name);
            if (g.has_extern_definition()) return std::nullopt;
            std::optional<Intervals> gr = region(g_name);
            if (!gr) return std::nullopt;
            each_definition(g, [&](const Definition &d, bool update) {
                const Scope<Interval> scope = scope_of(g, d, *gr);
                std::vector<Expr> exprs = d.values();
                if (update) exprs.insert(exprs.end(), d.args().begin(), d.args().end());
                exprs.push_back(d.predicate());
                for (const Expr &e : exprs) {
                    if (!e.defined()) continue;
                    const auto boxes = boxes_required(e, scope);
                    auto b = boxes.find(name);
                    if (b == boxes.end()) continue;
                    for (size_t dd = 0; dd < b->second.size() && dd < dims; dd++) {
                        if (!b->second[dd].is_bounded()) unbounded = true;
                        add_union(r, dd, b->second[dd]);
                    }
                }
            });
        }
        if (unbounded) return std::nullopt;
        // What its own updates write beyond that (a histogram's bins).
        const Intervals needed = r;
        for (const auto &u : f.updates()) {
            const Scope<Interval> scope = scope_of(f, u, needed);
            for (size_t d = 0; d < u.args().size() && d < dims; d++) {
                const Variable *v = u.args()[d].as<Variable>();
                if (v && v->name == f.args()[d]) continue;  // its pure var as it is: within the region
                Interval i = bounds_of_expr_in_scope(with_pure_calls_inlined(u.args()[d]), scope);
                if (!i.is_bounded()) return std::nullopt;
                add_union(r, d, i);
            }
        }
        for (auto &i : r) {
            if (!i.is_bounded()) return std::nullopt;  // (no reader, no output: nothing needs it)
            // (Unsimplified, a union of the readers' simplified bounds: a few times as large.)
            if (!small_bound(i.min, 4 * kMaxBoundNodes) || !small_bound(i.max, 4 * kMaxBoundNodes)) return std::nullopt;
            i = Interval(simplify(i.min), simplify(i.max));
            if (!small_bound(i.min) || !small_bound(i.max)) return std::nullopt;
        }
        return r;
    }
};

}  // namespace

std::optional<std::vector<Interval>> run_time_region(const std::vector<Function> &outputs, const std::string &name) {
    RunTimeRegions regions(outputs);
    return regions.region(name);
}

Expr region_fits(const std::vector<Function> &outputs, const std::string &name, int64_t bytes) {
    RunTimeRegions regions(outputs);
    const auto region = regions.region(name);
    if (!region) return Expr();
    int64_t elem_bytes = 0;  // (a Tuple's values together)
    for (const Type &t : regions.env.at(name).output_types()) elem_bytes += t.bytes();
    if (elem_bytes <= 0) return Expr();
    const int64_t most = bytes / elem_bytes;
    if (region->size() == 1) {
        const Expr extent = simplify(region->front().max - region->front().min + 1);
        return simplify(extent <= Expr(int32_t(std::min<int64_t>(most, INT32_MAX))));
    }
    Expr points = Expr(int64_t(1));
    for (const Interval &i : *region) points = points * cast<int64_t>(i.max - i.min + 1);
    return simplify(points <= Expr(most));
}

}  // namespace solder::autosched
