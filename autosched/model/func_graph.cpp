#include "autosched/model/func_graph.h"

#include "autosched/model/run_time_region.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "autosched/model/generic_reason.h"
#include "autosched/model/pipeline_funcs.h"

namespace solder::autosched {
using namespace Halide;
using namespace Halide::Internal;

const char *access_name(Access a) {
    switch (a) {
    case Access::Pointwise: return "pointwise";
    case Access::Broadcast: return "broadcast";
    case Access::Remap: return "remap";
    case Access::Stencil: return "stencil";
    case Access::Reduction: return "reduction";
    case Access::DataDependent: return "data-dependent";
    }
    return "?";
}

bool same_region(const Region &a, const Region &b) {
    if (a.size() != b.size()) return false;
    for (size_t d = 0; d < a.size(); d++)
        if (a[d].min != b[d].min || a[d].max != b[d].max) return false;
    return true;
}

int64_t region_points(const Region &r) {
    int64_t n = 1;
    for (auto &d : r) n *= std::max<int64_t>(0, d.extent());
    return n;
}

std::vector<std::string> scalar_params_in(const Expr &e) {
    struct Finder : IRVisitor {
        std::vector<std::string> found;
        using IRVisitor::visit;
        void visit(const Variable *v) override {
            if (v->param.defined() && !v->param.is_buffer() &&
                std::find(found.begin(), found.end(), v->name) == found.end())
                found.push_back(v->name);
        }
    } f;
    if (e.defined()) e.accept(&f);
    return f.found;
}

namespace {

std::string expr_text(const Expr &e) {
    std::ostringstream o;
    o << e;
    return o.str();
}

// Every call to a Func or image in an expression, with its args.
struct CallSite {
    std::string name;
    std::vector<Expr> args;
    bool nested_load = false;  // an arg reads memory: a data-dependent index
    bool scattered = false;    // a loaded arg that varies along the reader's innermost var
    bool uneven = false;       // an arg rounds float coordinates (FuncEdge::uneven)
};

// What the cost model charges one point, in its units (flops at the f32 FMA pipe's rate): every
// operation once, and integer arithmetic on values once more. sm_80 and later issue 64 integer
// lanes per cycle per SM against 128 f32 lanes, and an integer add fuses with nothing. Index
// arithmetic (a call's args) stays at one: the compiler shares and folds most of it into the
// address. Jump flooding's passes (184 operations a point, 120 of them integer) ran on the H200
// 3.5x longer than their arithmetic at the f32 rate said when four were fused with their halos
// recomputed (69 us, estimated 19.7); counted so, the plan stores more of them (135.5 -> 107.4 us
// in all). Counting integer operations at 4 (their issue rate against the model's 2 flops per
// FMA) stored one more pass there (97.1 us) but split a user's Canny edges into three kernels
// (90.8 -> 103.7 us), so it stays at 2. Loads and comparisons are not counted: counted too, they
// split heat diffusion, the game of life and a Laplacian blend into more kernels (not measured).
int64_t instructions_per_point(int64_t ops, int64_t integer_ops) { return ops + integer_ops; }

class CallCollector : public IRVisitor {
public:
    // `innermost`: the reading Func's innermost pure var (for CallSite::scattered; empty: none).
    // `rvars`: the stage's RVars (a let of an index that names one is substituted: below).
    explicit CallCollector(std::string innermost = "", std::set<std::string> rvars = {})
        : innermost_(std::move(innermost)), rvars_(std::move(rvars)) {}
    std::vector<CallSite> sites;
    int64_t ops = 0;
    int64_t math_calls = 0;   // calls of transcendental math (PureExtern)
    int64_t integer_ops = 0;  // of `ops`, integer arithmetic on values (not in a call's args)

private:
    using IRVisitor::visit;
    std::string innermost_;
    std::set<std::string> rvars_;
    int in_args_ = 0;
    void count(const Type &t, int64_t n = 1) {
        ops += n;
        if (!t.is_float() && in_args_ == 0) integer_ops += n;
    }
    void visit(const Call *op) override {
        if (op->call_type == Call::Halide || op->call_type == Call::Image) {
            // The args with the lets they name substituted where those read a scalar parameter in
            // integer arithmetic (Halide shares `x * s` of `f(x * s, y * s) + f(x * s + 1, y * s)` as a let: read as a
            // var, a decimation by a parameter looked like a stencil, its tiles staging 9 points per
            // 4 read). Lets of constant strides stay vars: a pyramid's `f(2x - 1) + f(2x) + f(2x + 1)`
            // is a stencil whose taps overlap, and local_laplacian's plan is 1.24x slower under the
            // model without them. Loads are still found in the args as written.
            std::vector<Expr> args = op->args;
            if (!let_values_.empty())
                for (auto &a : args) a = substitute(let_values_, a);
            CallSite s{op->name, args, false};
            for (auto &a : op->args) {
                s.nested_load |= reads_memory(a);
                const Traits t = traits(a);
                s.scattered |= t.loads && t.innermost;
                s.uneven |= t.uneven && !t.loads;
            }
            sites.push_back(s);
            in_args_++;
            IRVisitor::visit(op);
            in_args_--;
            return;
        } else if (op->call_type == Call::PureExtern) {
            ops += 20;  // transcendental math
            math_calls++;
        } else {
            ops += 1;
        }
        IRVisitor::visit(op);
    }
    void visit(const Add *op) override { count(op->type), IRVisitor::visit(op); }
    void visit(const Sub *op) override { count(op->type), IRVisitor::visit(op); }
    void visit(const Mul *op) override { count(op->type), IRVisitor::visit(op); }
    void visit(const Div *op) override { count(op->type, 4), IRVisitor::visit(op); }
    void visit(const Mod *op) override { count(op->type, 4), IRVisitor::visit(op); }
    void visit(const Min *op) override { count(op->type), IRVisitor::visit(op); }
    void visit(const Max *op) override { count(op->type), IRVisitor::visit(op); }
    void visit(const Select *op) override { count(op->type), IRVisitor::visit(op); }

    // (reads_memory, pipeline_funcs.h, does not follow the lets an arg names: an index loaded
    // through a let classifies as the affine access it is written as. Followed, local_laplacian's
    // and bilateral_grid's lookups became data-dependent reads, whose producers the planner must
    // store: their plans' costs rose 1.7x and 1.1x under the model.)
    // What an expression depends on: a load, and the reader's innermost var, through the lets it
    // names (Halide's definitions share common subexpressions as lets: a trilinear lookup's z index
    // is a let of the pixel's loaded luminance).
    // `uneven`: the expression rounds a float to an integer (float coordinates:
    // floor((x + 0.5f) * scale)).
    struct Traits {
        bool loads = false, innermost = false, uneven = false;
    };
    std::map<std::string, Traits> lets_;
    Traits traits(const Expr &e) const {
        struct Finder : IRVisitor {
            const CallCollector &cc;
            Traits t;
            explicit Finder(const CallCollector &c) : cc(c) {}
            using IRVisitor::visit;
            void visit(const Call *c) override {
                if (c->call_type == Call::Halide || c->call_type == Call::Image) t.loads = true;
                IRVisitor::visit(c);
            }
            void visit(const Load *) override { t.loads = true; }
            void visit(const Cast *c) override {
                t.uneven |= c->value.type().is_float() && !c->type.is_float();
                IRVisitor::visit(c);
            }
            void visit(const Variable *v) override {
                if (!cc.innermost_.empty() && v->name == cc.innermost_) t.innermost = true;
                auto it = cc.lets_.find(v->name);
                if (it != cc.lets_.end())
                    t.loads |= it->second.loads, t.innermost |= it->second.innermost, t.uneven |= it->second.uneven;
            }
        } f(*this);
        e.accept(&f);
        return f.t;
    }
    void visit(const Let *op) override {
        op->value.accept(this);
        lets_[op->name] = traits(op->value);
        Expr value = let_values_.empty() ? op->value : substitute(let_values_, op->value);
        // (And lets of integer indices that name an RVar: Halide shares `x + r.x` of
        // `sum(gx(x + r.x, y + r.y) * gy(x + r.x, y + r.y))` as lets, and read as vars the window
        // looked like a remap.)
        if ((!scalar_params_in(value).empty() || names_rvar(value)) && integer_only(value))
            let_values_[op->name] = value;
        op->body.accept(this);
    }
    std::map<std::string, Expr> let_values_;
    bool names_rvar(const Expr &e) const {
        for (auto &r : rvars_)
            if (expr_uses_var(e, r)) return true;
        return false;
    }
    // Whether `e` computes in integers throughout (`x * s`), not through floats (a resize's or a
    // warp's rounded coordinates, whose stencil tiles stage a bounded footprint per tile).
    static bool integer_only(const Expr &e) {
        struct Finder : IRVisitor {
            bool floats = false;
            using IRVisitor::visit;
            void visit(const Cast *c) override {
                floats |= c->value.type().is_float();
                IRVisitor::visit(c);
            }
            void visit(const FloatImm *) override { floats = true; }
            void visit(const Variable *v) override { floats |= v->type.is_float(); }
        } f;
        e.accept(&f);
        return !f.floats && !e.type().is_float();
    }
};

// `e` with every call to the pure Funcs of `inlined` replaced by their definitions, their args
// substituted (chains of them too). (Halide's inline_function needs locked schedules.)
Expr inline_all(Expr e, const std::vector<Function> &inlined) {
    struct Inliner : IRMutator {
        const std::vector<Function> *fns = nullptr;
        using IRMutator::visit;
        Expr visit(const Call *c) override {
            if (c->call_type == Call::Halide)
                for (const Function &f : *fns)
                    if (f.name() == c->name && c->value_index < int(f.values().size())) {
                        std::map<std::string, Expr> args;
                        for (size_t i = 0; i < c->args.size() && i < f.args().size(); i++)
                            args[f.args()[i]] = mutate(c->args[i]);
                        return mutate(substitute(args, f.values()[size_t(c->value_index)]));
                    }
            return IRMutator::visit(c);
        }
    } inliner;
    inliner.fns = &inlined;
    return inliner.mutate(e);
}

std::vector<StageExprs> stages_of(const Function &f, const std::vector<Function> &inlined = {}) {
    std::vector<StageExprs> out;
    auto add = [&](const Definition &d, bool update) {
        StageExprs s;
        s.update = update;
        for (auto &v : d.values()) s.exprs.push_back(v);
        if (update)
            for (auto &a : d.args()) s.exprs.push_back(a);
        s.rvars = d.schedule().rvars();
        if (has_predicate(d)) s.exprs.push_back(d.predicate()), s.predicated = true;
        if (!inlined.empty())
            for (auto &e : s.exprs) e = inline_all(e, inlined);
        for (auto &a : f.args()) s.pure.push_back(a);
        out.push_back(s);
    };
    add(f.definition(), false);
    for (auto &u : f.updates()) add(u, true);
    return out;
}

// `e` at the estimates: a constant, or an error naming what it depends on.
int64_t const_or_throw(const Expr &e, const std::string &what, const std::map<std::string, Expr> &estimates = {}) {
    if (!e.defined()) throw AnalysisError(what + " is not a constant (unbounded)");
    Expr s = simplify(substitute(estimates, e));
    if (auto c = as_const_int(s)) return *c;
    for (auto &p : scalar_params_in(s))
        throw EstimateError(what + " depends on the parameter '" + p +
                            "', which has no estimate: call set_estimate on it");
    throw AnalysisError(what + " is not a constant (" + expr_text(s) + ")");
}

}  // namespace

int FuncGraph::find(const std::string &name) const {
    // (A node's call name is nearly always its name; plans of 2,000 Funcs look names up often.)
    if (auto it = lookup_.find(name); it != lookup_.end() && nodes[size_t(it->second)].name == name) return it->second;
    for (size_t i = 0; i < nodes.size(); i++)
        if (nodes[i].name == name) return int(i);
    return -1;
}

int FuncGraph::lookup(const std::string &call_name) const {
    auto it = lookup_.find(call_name);
    return it == lookup_.end() ? -1 : it->second;
}

const FuncEdge *FuncGraph::edge(int p, int c) const {
    for (int e : nodes[c].in_edges)
        if (edges[e].producer == p) return &edges[e];
    return nullptr;
}

Expr FuncGraph::at_estimates(const Expr &e) const { return e.defined() ? simplify(substitute(estimates_, e)) : e; }

Expr FuncGraph::fits_when_run(int n, int64_t bytes) const {
    const auto key = std::make_pair(n, bytes);
    if (auto it = fits_when_run_.find(key); it != fits_when_run_.end()) return it->second;
    std::vector<Function> outs;
    for (const FuncNode &o : nodes)
        if (o.is_output && o.function.get_contents().defined()) outs.push_back(o.function);
    const FuncNode &f = nodes[size_t(n)];
    Expr fits = f.is_input || !f.function.get_contents().defined() ? Expr() : region_fits(outs, f.name, bytes);
    return fits_when_run_.emplace(key, fits).first->second;
}

bool FuncGraph::fixed_sizes() const {
    for (auto &n : nodes)
        if ((n.is_input || n.is_output) && !n.fixed_extents) return false;
    return true;
}

int64_t FuncGraph::least_read_bytes(int n) const {
    const FuncNode &in = nodes[size_t(n)];
    int64_t gathered = 0;
    for (int e : in.out_edges) {
        const FuncEdge &E = edges[size_t(e)];
        const FuncNode &c = nodes[size_t(E.consumer)];
        if (E.access != Access::DataDependent || c.is_reduction()) return in.bytes();
        gathered += c.points() * E.sites * in.elem_bytes;
    }
    return in.out_edges.empty() ? in.bytes() : std::min(in.bytes(), gathered);
}

bool FuncGraph::read_through_stencil(int n) const {
    for (int e : nodes[size_t(n)].out_edges)
        if (edges[size_t(e)].access == Access::Stencil) return true;
    return false;
}

bool FuncGraph::read_through_window(int n) const {
    for (int e : nodes[size_t(n)].out_edges)
        if (edges[size_t(e)].window) return true;
    return false;
}

bool FuncGraph::read_at_taps(int n) const {
    for (int e : nodes[size_t(n)].out_edges)
        if (edges[size_t(e)].taps()) return true;
    return false;
}

bool FuncGraph::read_through_resampling(int n) const {
    for (int e : nodes[size_t(n)].out_edges)
        if (edges[size_t(e)].resamples()) return true;
    return false;
}

void FuncGraph::push_rvars_at_estimates(const std::vector<ReductionVariable> &rvars, Scope<Interval> &scope) const {
    for (auto &rv : rvars) scope.push(rv.var, Interval(at_estimates(rv.min), at_estimates(rv.min + rv.extent - 1)));
}

namespace {

// An input's extent estimate in dim `d`, doubled at larger sizes unless the input's extent there is
// a constant (FuncGraph::at_larger_sizes).
Expr grown_extent(const Parameter &p, int d, const Expr &extent, GraphSizes sizes) {
    const bool larger = sizes == GraphSizes::Larger || sizes == GraphSizes::LargerAll;
    if (!larger || (p.extent_constraint(d).defined() && is_const(p.extent_constraint(d)))) return extent;
    return simplify(extent * Halide::cast(extent.type(), Expr(int32_t(2))));
}

// A Func's declared bounds: its estimates (set_estimates), then the bounds its author gave it
// (Func::bound: a color channel's three), which win where both name a dim (Halide records a bound
// among the estimates too).
std::vector<Halide::Internal::Bound> declared_bounds(const Function &f) {
    std::vector<Halide::Internal::Bound> all = f.schedule().estimates();
    for (auto &b : f.schedule().bounds())
        if (b.min.defined() && b.extent.defined()) all.push_back(b);
    return all;
}

}  // namespace

Region FuncGraph::declared_region(const FuncNode &n, const std::string &kind) const {
    std::vector<Halide::Range> per_dim(n.dims.size());
    for (auto &b : declared_bounds(n.function)) {
        auto it = std::find(n.dims.begin(), n.dims.end(), b.var);
        if (it != n.dims.end() && b.min.defined() && b.extent.defined())
            per_dim[size_t(it - n.dims.begin())] = Halide::Range(b.min, b.extent);
    }
    for (auto &d : per_dim)
        if (!d.min.defined()) return {};
    if (per_dim.empty()) return {{0, 0}};  // a scalar: one point
    Region r(per_dim.size());
    for (size_t d = 0; d < per_dim.size(); d++) {
        const std::string what = "the estimate of " + kind + " '" + n.name + "' (" + n.dims[d] + ")";
        const int64_t m = const_or_throw(per_dim[d].min, what, estimates_),
                      e = const_or_throw(per_dim[d].extent, what, estimates_);
        if (e < 1)
            throw EstimateError(what + " has extent " + std::to_string(e) + ": an extent estimate must be at least 1");
        r[d] = {m, m + e - 1};
    }
    return r;
}

std::vector<std::optional<Range64>> FuncGraph::written_by(const Halide::Internal::Definition &u) const {
    Scope<Interval> scope;
    push_rvars_at_estimates(u.schedule().rvars(), scope);
    std::vector<std::optional<Range64>> w;
    for (auto &a : u.args()) {
        Interval i = bounds_of_expr_in_scope(a, scope);
        auto lo = i.is_bounded() ? as_const_int(at_estimates(i.min)) : std::nullopt;
        auto hi = i.is_bounded() ? as_const_int(at_estimates(i.max)) : std::nullopt;
        w.push_back(lo && hi ? std::optional<Range64>(Range64{*lo, *hi}) : std::nullopt);
    }
    return w;
}

Region FuncGraph::natural_region(int p) const {
    const FuncNode &n = nodes[size_t(p)];
    if (n.is_input && !n.is_extern) return {};
    // set_estimates (or Func::bound) on the Func itself.
    if (Region r = declared_region(n, "Func"); !r.empty()) return r;
    // The points its updates write, where every arg is bounded by the RDom (a table filled over
    // a constant or estimated range: a histogram's bins, a cumulative sum).
    Region r;
    for (const auto &u : n.function.updates()) {
        Region ur;
        for (auto &w : written_by(u)) {
            if (!w) return {};
            ur.push_back(*w);
        }
        if (r.empty())
            r = ur;
        else
            for (size_t d = 0; d < r.size(); d++) r[d] = {std::min(r[d].min, ur[d].min), std::max(r[d].max, ur[d].max)};
    }
    return r;
}

Region FuncGraph::held_region(int i) const {
    const FuncNode &n = nodes[size_t(i)];
    Region r = n.region;
    if (n.is_input || n.is_extern) return r;
    for (const auto &u : n.function.updates()) {
        const auto w = written_by(u);
        for (size_t d = 0; d < w.size() && d < r.size(); d++)
            if (w[d]) r[d] = {std::min(r[d].min, w[d]->min), std::max(r[d].max, w[d]->max)};  // (a pure var: unbounded)
    }
    return r;
}

size_t FuncGraph::RegionKeyHash::operator()(const std::vector<int64_t> &k) const {
    uint64_t h = k.size();
    for (int64_t v : k) {  // splitmix64's finalizer over each value, chained
        uint64_t x = h + uint64_t(v) + 0x9e3779b97f4a7c15ULL;
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
        h = x ^ (x >> 31);
    }
    return size_t(h);
}

const std::vector<FuncGraph::ProducerRegion> &FuncGraph::producer_regions(int c, const Region &region) const {
    region_queries_++;
    // (The key built in a buffer kept between calls: most queries are answered from memory, and a
    // key of its own each time was an allocation per query.)
    std::vector<int64_t> &key = region_key_;
    key.clear();
    key.push_back(c);
    for (auto &r : region) key.push_back(r.min), key.push_back(r.max);
    if (auto it = producer_regions_.find(key); it != producer_regions_.end()) return it->second;
    std::vector<int64_t> stored = key;  // (what follows may ask other regions, reusing the buffer)
    // Bounded memory: a 2,000-Func chain's search asks about 400,000 distinct regions. (No caller
    // holds an answer across calls, so dropping them all is safe.)
    if (producer_regions_.size() >= kMaxRememberedRegions) producer_regions_.clear();
    // Producers in the order they are first read, each with the union of what every site needs.
    std::vector<ProducerRegion> found;
    const FuncNode &n = nodes[size_t(c)];
    for (auto &st : stages_[size_t(c)]) {
        Scope<Interval> scope;
        for (size_t d = 0; d < st.pure.size() && d < region.size(); d++)
            scope.push(st.pure[d], Interval(Expr(int32_t(region[d].min)), Expr(int32_t(region[d].max))));
        push_rvars_at_estimates(st.rvars, scope);
        for (auto &e : st.exprs) {
            for (auto &[name, box] : boxes_required(e, scope)) {
                int p = lookup(name);
                if (p < 0 || p == c) continue;
                Region r;
                for (size_t d = 0; d < box.size(); d++) {
                    std::string what = "the region of '" + nodes[p].name + "' needed by '" + n.name + "' (dim " +
                                       std::to_string(d) + ")";
                    if (!box[d].is_bounded()) {
                        // Data-dependent: the whole producer (its own estimate, the points its
                        // updates write, or the pipeline's need).
                        r = nodes[p].region.empty() ? natural_region(p) : nodes[p].region;
                        if (r.empty())
                            throw UnboundedReadError(what + " is data-dependent and '" + nodes[p].name +
                                                         "' has no estimates: give it set_estimates",
                                                     nodes[p].name);
                        break;
                    }
                    // Clamps to an input's bounds (boundary conditions) name its buffer's min and
                    // extent: those are the input's estimates.
                    r.push_back(
                        {const_or_throw(box[d].min, what, estimates_), const_or_throw(box[d].max, what, estimates_)});
                }
                if (r.empty()) r = {{0, 0}};  // rank 0: one point, and "needed" (non-empty)
                auto same =
                    std::find_if(found.begin(), found.end(), [&](const ProducerRegion &f) { return f.producer == p; });
                if (same == found.end()) {
                    found.push_back({p, r});
                } else {
                    for (size_t d = 0; d < r.size() && d < same->region.size(); d++)
                        same->region[d] = {std::min(same->region[d].min, r[d].min),
                                           std::max(same->region[d].max, r[d].max)};
                }
            }
        }
    }
    return producer_regions_.emplace(std::move(stored), std::move(found)).first->second;
}

std::vector<Region> FuncGraph::regions_for(int root, const Region &root_region, const std::vector<bool> &inside) const {
    std::vector<Region> reg(nodes.size());
    reg[root] = root_region;
    for (int c = root; c >= 0; c--) {  // producers come before their consumers
        if (reg[c].empty() || nodes[c].is_input) continue;
        if (c != root && !inside[c]) continue;
        for (auto &[p, r] : producer_regions(c, reg[c])) {
            if (reg[p].empty()) {
                reg[p] = r;
            } else {
                for (size_t d = 0; d < r.size() && d < reg[p].size(); d++)
                    reg[p][d] = {std::min(reg[p][d].min, r[d].min), std::max(reg[p][d].max, r[d].max)};
            }
        }
    }
    return reg;
}

namespace {

// v + c or v - c with c constant: the v, else null.
const Variable *var_plus_constant(const Expr &e) {
    if (const Add *a = e.as<Add>()) return is_const(a->b) ? a->a.as<Variable>() : nullptr;
    if (const Sub *s = e.as<Sub>()) return is_const(s->b) ? s->a.as<Variable>() : nullptr;
    return nullptr;
}

// The index a clamp to bounds that name no loop var holds, `clamp(x + k, 0, w - 1)` as users
// clamp their reads by hand (a boundary condition of their own): x + k. Else the arg itself.
Expr clamped_arg(const Expr &e) {
    auto loop_free = [](const Expr &b) {
        struct Vars : IRVisitor {
            bool loop = false;
            using IRVisitor::visit;
            void visit(const Variable *v) override { loop = loop || is_loop_var(v); }
        } vars;
        b.accept(&vars);
        return !vars.loop && !reads_memory(b);
    };
    if (const Max *m = e.as<Max>()) {
        if (const Min *n = m->a.as<Min>(); n && loop_free(m->b) && loop_free(n->b)) return n->a;
    } else if (const Min *n = e.as<Min>()) {
        if (const Max *m = n->a.as<Max>(); m && loop_free(n->b) && loop_free(m->b)) return m->a;
    }
    return e;
}

Access classify(const CallSite &s, const StageExprs &st, int producer_dims) {
    if (s.nested_load) return Access::DataDependent;
    std::set<std::string> rv;
    for (auto &r : st.rvars) rv.insert(r.var);
    std::vector<std::string> used;
    bool offset = false, other = false;
    for (const Expr &arg : s.args) {
        // (A read clamped by hand is classified by the index it clamps. Args are not folded:
        // taps written `f(x + k - 2, y)` in a C++ loop build `(x + 0) - 2` at k = 0, a remap; read
        // as stencils, the stencil template took two user pipelines, both slower on the H100 so:
        // a 3 x 3 maximum 20.1 -> 29.2 us, three Richardson-Lucy steps 252.7 -> 288.5 us.)
        const Expr a = clamped_arg(arg);
        for (auto &r : rv)
            if (expr_uses_var(a, r)) return Access::Reduction;
        if (const Variable *v = a.as<Variable>()) {
            used.push_back(v->name);
        } else if (const Variable *w = var_plus_constant(a)) {
            offset = true;
            used.push_back(w->name);
        } else if (!is_const(a)) {  // a constant is a fixed index: broadcast along that dim
            other = true;
        }
    }
    if (other) return Access::Remap;
    if (offset) return Access::Stencil;
    if (used == st.pure && int(used.size()) == producer_dims) return Access::Pointwise;
    // Broadcast: the used vars are distinct and appear in the consumer's own order.
    std::set<std::string> u(used.begin(), used.end());
    size_t k = 0;
    for (auto &p : st.pure)
        if (k < used.size() && used[k] == p) k++;
    bool in_order = k == used.size() && u.size() == used.size();
    return in_order ? Access::Broadcast : Access::Remap;
}

int rank_of(Access a) { return int(a); }

// Whether every read's every index follows a pure var of the consumer, each read's vars distinct
// (FuncEdge::site_vars): a window around the consumer's point, not a row of a contraction.
bool follows_distinct_vars(const std::vector<std::vector<int>> &site_vars) {
    for (auto &follows : site_vars) {
        std::set<int> seen;
        for (int v : follows)
            if (v < 0 || !seen.insert(v).second) return false;
    }
    return !site_vars.empty();
}

// Whether the index `a` moves with the stage's pure vars without changing the extents it spans:
// one pure var plus terms of RVars, parameters and constants, or such terms alone
// (FuncEdge::moves_with_consumer). `var`: that pure var's position in the stage's (-1: none).
bool moves_with_vars(const Expr &a, const StageExprs &st, int *var) {
    std::vector<std::string> pure_used;
    *var = -1;
    for (size_t i = 0; i < st.pure.size(); i++)
        if (expr_uses_var(a, st.pure[i])) pure_used.push_back(st.pure[i]), *var = int(i);
    if (pure_used.size() > 1) return false;
    const Expr rest = pure_used.empty() ? a : simplify(a - Variable::make(a.type(), pure_used[0]));
    struct Fixed : IRGraphVisitor {  // only RVars, parameters and constants left
        const StageExprs *st = nullptr;
        bool fixed = true;
        using IRGraphVisitor::visit;
        void visit(const Variable *v) override {
            fixed = fixed && (v->reduction_domain.defined() || v->param.defined() ||
                              std::any_of(st->rvars.begin(), st->rvars.end(),
                                          [&](const ReductionVariable &r) { return r.var == v->name; }));
        }
        void visit(const Load *) override { fixed = false; }
        void visit(const Call *c) override {
            fixed = fixed && c->call_type != Call::Halide && c->call_type != Call::Image;
            IRGraphVisitor::visit(c);
        }
    } f;
    f.st = &st;
    rest.accept(&f);
    return f.fixed;
}

}  // namespace

namespace {

// Whether every extent of a buffer parameter (an input's, an output's) is declared a constant.
bool constant_extents(const Parameter &p) {
    for (int d = 0; d < p.dimensions(); d++)
        if (!p.extent_constraint(d).defined() || !is_const(p.extent_constraint(d))) return false;
    return true;
}

// The estimates of every scalar parameter the pipeline names (set_estimate, or a generator
// input's default), and of the outputs' buffers ("out.extent.0", from the outputs' estimates).
void collect_parameter_estimates(const std::map<std::string, Function> &env, const std::vector<Func> &outputs,
                                 std::map<std::string, Expr> &estimates, GraphSizes sizes, bool *bounded) {
    struct Finder : IRVisitor {
        std::map<std::string, Expr> *out;
        GraphSizes sizes = GraphSizes::Estimated;
        bool bounded = false;  // some integer or float parameter's declared max lies above its estimate
        using IRVisitor::visit;
        void visit(const Variable *v) override {
            if (!v->param.defined() || v->param.is_buffer() || !v->param.estimate().defined()) return;
            Expr e = v->param.estimate();
            const Expr most = v->param.max_value();
            // (A float parameter may size a region too: a Gaussian's radius, ceil(3 sigma).)
            if (((e.type().is_int() && e.type().bits() >= 16) || e.type().is_float()) && is_const(e)) {
                const bool capped = most.defined() && is_const(most);
                if (capped && can_prove(most > e)) bounded = true;
                // Larger sizes (FuncGraph::at_larger_sizes): an unbounded parameter's estimate
                // doubled. At the declared max (at_declared_max): a bounded one's max.
                Expr g = e;
                if ((sizes == GraphSizes::Larger && !capped) || sizes == GraphSizes::LargerAll)
                    g = simplify(e * Halide::cast(e.type(), Expr(int32_t(2))));
                if (sizes == GraphSizes::DeclaredMax && capped) g = simplify(Halide::cast(e.type(), most));
                if (is_const(g)) e = g;
            }
            (*out)[v->name] = e;
        }
    } f;
    f.out = &estimates;
    f.sizes = sizes;
    for (auto &[name, fn] : env) {
        for (auto &st : stages_of(fn))
            for (auto &e : st.exprs) e.accept(&f);
        for (const auto &u : fn.updates())
            for (auto &rv : u.schedule().rvars()) {
                rv.min.accept(&f);
                rv.extent.accept(&f);
            }
    }
    for (auto &o : outputs) {
        const auto est = declared_bounds(o.function());
        const auto args = o.function().args();
        for (auto &ob : o.function().output_buffers())
            for (auto &b : est) {
                size_t d = size_t(std::find(args.begin(), args.end(), b.var) - args.begin());
                if (d >= args.size() || !b.min.defined() || !b.extent.defined()) continue;
                estimates[ob.name() + ".min." + std::to_string(d)] = b.min;
                estimates[ob.name() + ".extent." + std::to_string(d)] = b.extent;
            }
    }
    if (bounded) *bounded = f.bounded;
}

}  // namespace

namespace {

// Points beyond this at the estimates (a petabyte of floats) are no buffer any device holds: an
// estimate given in error. (The planner counts bytes and times in int64, which such sizes would
// overflow: estimates of 2^30 in each of three dims planned "-4611686018427 MB moved".)
constexpr double kMaxEstimatePoints = double(int64_t(1) << 48);

void check_estimate_points(double points, const std::string &what) {
    if (points <= kMaxEstimatePoints) return;
    std::ostringstream o;
    o << "at the estimates, " << what << " spans " << points
      << " points, more than any device holds (2^48): check the set_estimates of the pipeline's outputs and "
         "inputs and the estimates of its scalar parameters";
    throw EstimateError(o.str());
}

}  // namespace

FuncGraph FuncGraph::build(const std::vector<Func> &outputs) {
    FuncGraph g = build_growing(outputs, GraphSizes::Estimated);
    if (g.fixed_sizes()) return g;
    // The same pipeline at other sizes, node for node; null where it cannot be analysed there
    // (beyond what the graph takes, say).
    auto at = [&](GraphSizes sizes) -> std::shared_ptr<FuncGraph> {
        try {
            auto other = std::make_shared<FuncGraph>(build_growing(outputs, sizes));
            if (other->nodes.size() != g.nodes.size()) return nullptr;
            for (size_t i = 0; i < g.nodes.size(); i++)
                if (other->nodes[i].name != g.nodes[i].name ||
                    other->nodes[i].region.size() != g.nodes[i].region.size())
                    return nullptr;
            return other;
        } catch (const AnalysisError &) {
        } catch (const Halide::CompileError &) {
        } catch (const Halide::InternalError &) {}
        return nullptr;
    };
    // At the bounded parameters' declared maxima (at_declared_max): what each node holds there.
    // (Where the pipeline cannot be analysed there, a max beyond what the graph takes, those
    // parameters count as growing like any other.)
    std::shared_ptr<FuncGraph> most = g.bounded_params_ ? at(GraphSizes::DeclaredMax) : nullptr;
    if (most) {
        for (size_t i = 0; i < g.nodes.size(); i++) g.nodes[i].held_at_declared_max = most->held_region(int(i));
        g.declared_max_ = most;
    }
    // At larger sizes (at_larger_sizes): which regions grow there.
    if (auto big = at(g.bounded_params_ && !most ? GraphSizes::LargerAll : GraphSizes::Larger)) {
        for (size_t i = 0; i < g.nodes.size(); i++) {
            FuncNode &n = g.nodes[i];
            const Region here = g.held_region(int(i)), there = big->held_region(int(i));
            n.grows.assign(n.region.size(), false);
            for (size_t d = 0; d < n.region.size() && d < here.size() && d < there.size(); d++)
                n.grows[d] = there[d].extent() > here[d].extent();
        }
        g.larger_ = big;
    }
    return g;
}

const FuncGraph *FuncGraph::at_declared_max() const { return declared_max_.get(); }

const FuncGraph *FuncGraph::at_larger_sizes() const { return larger_.get(); }

FuncGraph FuncGraph::build_growing(const std::vector<Func> &outputs, GraphSizes sizes) {
    std::vector<Function> inlined;
    while (true) {
        try {
            return build_inlining(outputs, inlined, sizes);
        } catch (const UnboundedReadError &e) {
            // A pure Func that is not an output: Halide inlines it, and its readers then read what
            // it reads (through the clamps of a boundary condition, a bounded region).
            std::vector<Function> outs;
            for (auto &f : outputs) outs.push_back(f.function());
            const auto env = build_environment(outs);
            auto it = env.find(e.producer);
            if (it == env.end() || !it->second.can_be_inlined() || !it->second.updates().empty() ||
                it->second.has_extern_definition() ||
                std::any_of(outputs.begin(), outputs.end(), [&](const Func &o) { return o.name() == e.producer; }) ||
                std::any_of(inlined.begin(), inlined.end(), [&](const Function &f) { return f.name() == e.producer; }))
                throw;
            inlined.push_back(it->second);
        }
    }
}

FuncGraph FuncGraph::build_inlining(const std::vector<Func> &outputs, const std::vector<Function> &inlined,
                                    GraphSizes sizes) {
    FuncGraph g;
    for (auto &f : inlined) g.inlined_unbounded.push_back(f.name());
    std::vector<Function> outs;
    for (auto &f : outputs) outs.push_back(f.function());
    std::map<std::string, Function> env = build_environment(outs);
    std::vector<std::string> order = topological_order(outs, env);
    order.erase(std::remove_if(order.begin(), order.end(),
                               [&](const std::string &n) {
                                   return std::any_of(inlined.begin(), inlined.end(),
                                                      [&](const Function &f) { return f.name() == n; });
                               }),
                order.end());
    auto stages_of = [&](const Function &f) { return ::solder::autosched::stages_of(f, inlined); };
    collect_parameter_estimates(env, outputs, g.estimates_, sizes, &g.bounded_params_);
    // Funcs whose every call simplifies away (0.0f * f(x), f(x) - f(x)) are left out of the graph:
    // unscheduled, they are inlined into nothing. (Computed per block beside the stencil template's
    // specialization, such a Func crashed Halide's bounds inference.)
    {
        std::set<std::string> live;
        for (auto &o : outs) live.insert(o.name());
        struct Calls : IRVisitor {
            std::set<std::string> *live = nullptr;
            using IRVisitor::visit;
            void visit(const Call *c) override {
                if (c->call_type == Call::Halide) live->insert(c->name);
                IRVisitor::visit(c);
            }
        } calls;
        calls.live = &live;
        for (auto it = order.rbegin(); it != order.rend(); ++it)  // every consumer before its producers
            if (live.count(*it)) {
                const Function &f = env.at(*it);
                for (auto &st : stages_of(f))
                    for (auto &e : st.exprs) simplify(e).accept(&calls);
                if (f.has_extern_definition())
                    for (auto &a : f.extern_arguments())
                        if (a.is_func()) live.insert(Function(a.func).name());
            }
        order.erase(std::remove_if(order.begin(), order.end(), [&](const std::string &n) { return !live.count(n); }),
                    order.end());
    }

    // Inputs first (from wrappers and direct image calls), then Funcs in topological order.
    auto add_input = [&](const std::string &param_name, const Parameter &p, const std::string &alias) {
        int idx = g.find(param_name);
        if (idx < 0) {
            FuncNode n;
            n.name = param_name;
            n.is_input = true;
            n.elem_bytes = p.type().bytes();
            n.fixed_extents = constant_extents(p);
            std::ostringstream t;
            t << p.type();
            n.type = t.str();
            for (int d = 0; d < p.dimensions(); d++) {
                n.dims.push_back("dim" + std::to_string(d));
                Expr mn = p.min_constraint_estimate(d), ex = p.extent_constraint_estimate(d);
                if (!mn.defined() || !ex.defined())
                    throw EstimateError("input '" + param_name + "' has no estimate for dimension " +
                                        std::to_string(d) + ": set_estimates on it (or dim(" + std::to_string(d) +
                                        ").set_estimate)");
                const std::string what =
                    "the estimate of input '" + param_name + "' (dimension " + std::to_string(d) + ")";
                int64_t m = const_or_throw(mn, what, g.estimates_);
                int64_t e = const_or_throw(grown_extent(p, d, ex, sizes), what, g.estimates_);
                if (e < 1)
                    throw EstimateError(what + " has extent " + std::to_string(e) +
                                        ": an extent estimate must be at least 1");
                n.region.push_back({m, m + e - 1});
                g.estimates_[param_name + ".min." + std::to_string(d)] = Expr(int32_t(m));
                g.estimates_[param_name + ".extent." + std::to_string(d)] = Expr(int32_t(e));
            }
            idx = int(g.nodes.size());
            g.nodes.push_back(n);
            g.lookup_.emplace(param_name, idx);
        }
        if (!alias.empty()) {
            g.lookup_.emplace(alias, idx);
        }
    };
    for (auto &name : order) {
        const Function &f = env.at(name);
        if (f.has_extern_definition()) continue;  // (a node of its own below, among the Funcs)
        if (is_input_wrapper(f)) {
            const auto *c = f.definition().values()[0].as<Call>();
            add_input(c->name, c->param, name);
            continue;
        }
        // Direct image calls (an ImageParam used without its wrapper).
        struct ImageFinder : IRVisitor {
            std::vector<std::pair<std::string, Parameter>> found;
            using IRVisitor::visit;
            void visit(const Call *c) override {
                if (c->call_type == Call::Image && c->param.defined()) found.push_back({c->name, c->param});
                IRVisitor::visit(c);
            }
        } imf;
        for (auto &st : stages_of(f))
            for (auto &e : st.exprs) e.accept(&imf);
        for (auto &[n, p] : imf.found) add_input(n, p, "");
    }
    for (auto &name : order) {
        const Function &f = env.at(name);
        if (is_input_wrapper(f)) continue;
        FuncNode n;
        n.name = name;
        n.function = f;
        for (auto &o : outputs) n.is_output |= o.name() == name;
        if (n.is_output) {
            n.fixed_extents = true;
            for (auto &ob : f.output_buffers()) n.fixed_extents = n.fixed_extents && constant_extents(ob);
        }
        n.dims = f.args();
        if (f.has_extern_definition()) {
            n.is_input = n.is_extern = true;
            for (auto &a : f.extern_arguments()) {
                if (!a.is_func()) continue;
                const int arg = g.find(Function(a.func).name());
                if (arg < 0 || (g.nodes[size_t(arg)].is_input && !g.nodes[size_t(arg)].is_extern))
                    throw AnalysisError("extern stage '" + name + "' reads Func '" + Function(a.func).name() +
                                        "', which Solder cannot place before it");
                // Of another dimensionality, the region the extern asks of it is its own estimates'
                // (or what its updates write, as for any Func: natural_region).
                const FuncNode &an = g.nodes[size_t(arg)];
                if (an.dims.size() != n.dims.size() && g.natural_region(arg).empty())
                    throw AnalysisError("extern stage '" + name + "' reads Func '" + an.name + "' of another " +
                                        "dimensionality (" + std::to_string(an.dims.size()) + " dims, the extern " +
                                        std::to_string(n.dims.size()) +
                                        "): Solder cannot tell the region the extern asks of it; give '" + an.name +
                                        "' estimates for that region (Func::set_estimates)");
                if (!an.is_extern) g.nodes[size_t(arg)].read_by_extern = true;  // (an extern is at root already)
            }
        }
        n.elem_bytes = 0;
        std::ostringstream t;
        for (size_t i = 0; i < f.output_types().size(); i++) {
            n.elem_bytes += f.output_types()[i].bytes();
            t << (i ? "," : "") << f.output_types()[i];
        }
        n.type = t.str();
        if (n.is_extern) {
            g.lookup_.emplace(name, int(g.nodes.size()));
            g.nodes.push_back(n);
            continue;
        }
        n.updates = int(f.updates().size());
        n.generic = generic_reason(f);
        n.generic_per_point = !n.generic.empty() && (reduces_per_point(f) || refined_in_place(f));
        n.predicated_reduction = predicated_reduction(f);
        for (auto &u : f.updates()) {
            int64_t pts = 1;
            double all_pts = 1;
            bool any = false;
            n.rvar_extents.emplace_back();
            n.rvar_mins.emplace_back();
            for (auto &rv : u.schedule().rvars()) {
                const std::string what = "the extent of RVar '" + rv.var + "' of Func '" + name + "'";
                n.rvar_extents.back().push_back(std::max<int64_t>(0, const_or_throw(rv.extent, what, g.estimates_)));
                n.rvar_mins.back().push_back(
                    const_or_throw(rv.min, "the min of RVar '" + rv.var + "' of Func '" + name + "'", g.estimates_));
                all_pts *= double(n.rvar_extents.back().back());
                check_estimate_points(all_pts, "the RDom of Func '" + name + "'");
                pts *= n.rvar_extents.back().back();
                any = true;
            }
            if (any) n.reduction_points += pts;
        }
        CallCollector cc;
        for (auto &st : stages_of(f))
            for (auto &e : st.exprs) e.accept(&cc);
        n.ops_per_point = cc.ops;
        n.instrs_per_point = instructions_per_point(cc.ops, cc.integer_ops);
        n.math_calls = cc.math_calls;
        int idx = int(g.nodes.size());
        g.nodes.push_back(n);
        g.lookup_.emplace(name, idx);
    }

    for (auto &n : g.nodes) g.stages_.push_back(n.is_input ? std::vector<StageExprs>() : stages_of(n.function));

    // Output regions from their estimates.
    std::vector<bool> all(g.nodes.size(), true);
    std::vector<Region> need(g.nodes.size());
    // Each node's region grown to cover `reg`'s for it.
    auto add_needs = [&](const std::vector<Region> &reg) {
        for (size_t k = 0; k < reg.size(); k++) {
            if (reg[k].empty()) continue;
            if (need[k].empty())
                need[k] = reg[k];
            else
                for (size_t d = 0; d < reg[k].size(); d++)
                    need[k][d] = {std::min(need[k][d].min, reg[k][d].min), std::max(need[k][d].max, reg[k][d].max)};
        }
    };
    for (auto &o : outputs) {
        int i = g.find(o.name());
        Region r = g.declared_region(g.nodes[size_t(i)], "output");
        if (r.empty())
            throw EstimateError("output Func '" + o.name() +
                                "' has no estimates for all its dimensions: call set_estimates (or bound them)");
        add_needs(g.regions_for(i, r, all));
    }
    // An extern stage asks for its Func arguments when it runs (Halide's bounds query); the graph
    // takes its own region for theirs. Consumers first: an extern's region is known before its
    // arguments', and theirs before those of any extern upstream.
    for (size_t k = g.nodes.size(); k-- > 0;) {
        if (!g.nodes[k].is_extern || need[k].empty()) continue;
        for (auto &a : g.nodes[k].function.extern_arguments()) {
            if (!a.is_func()) continue;
            const int arg = g.find(Function(a.func).name());
            const bool same_dims = g.nodes[size_t(arg)].dims.size() == g.nodes[k].dims.size();
            add_needs(g.regions_for(arg, same_dims ? need[k] : g.natural_region(arg), all));
        }
    }
    for (size_t k = 0; k < g.nodes.size(); k++) {
        if (g.nodes[k].is_input && !g.nodes[k].is_extern)
            continue;  // inputs keep their estimates (what the caller passes)
        if (need[k].empty()) throw AnalysisError("Func '" + g.nodes[k].name + "' is not needed by any output");
        g.nodes[k].region = need[k];
    }
    for (const FuncNode &n : g.nodes) {
        double pts = 1;
        for (const auto &r : n.region) pts *= double(r.max) - double(r.min) + 1;
        check_estimate_points(pts, (n.is_input ? "input '" : "Func '") + n.name + "'");
    }
    // (The regions asked for above saw no node's region yet: a Func read at data-dependent points
    // stood for its natural region. Forgotten, so that later answers see the regions just set.)
    g.producer_regions_.clear();

    // Edges: one per (producer, consumer), with the hardest access over all call sites.
    for (size_t c = 0; c < g.nodes.size(); c++) {
        if (g.nodes[c].is_input) continue;
        std::map<int, Access> acc;
        std::map<int, std::string> detail;
        std::map<int, std::set<std::string>> sites;
        std::set<int> scattered, uneven, unmoved;
        std::map<int, std::set<std::vector<int>>> site_vars;
        for (auto &st : stages_of(g.nodes[c].function)) {
            std::set<std::string> rvars;
            for (auto &rv : st.rvars) rvars.insert(rv.var);
            CallCollector cc(g.nodes[c].dims.empty() ? std::string() : g.nodes[c].dims[0], rvars);
            for (auto &e : st.exprs) e.accept(&cc);
            for (auto &s : cc.sites) {
                int p = g.lookup(s.name);
                if (p < 0 || p == int(c)) continue;
                std::string args;
                for (auto &a : s.args) args += expr_text(a) + ",";
                sites[p].insert(args);
                if (s.scattered) scattered.insert(p);
                if (s.uneven) uneven.insert(p);
                bool moves = !s.nested_load && !st.predicated;
                std::vector<int> follows;
                for (auto &a : s.args) {
                    int v = -1;
                    moves = moves && moves_with_vars(a, st, &v);
                    follows.push_back(v);
                }
                if (!moves) unmoved.insert(p);
                site_vars[p].insert(follows);
                Access a = classify(s, st, int(g.nodes[p].dims.size()));
                if (!acc.count(p) || rank_of(a) > rank_of(acc[p])) {
                    acc[p] = a;
                    std::ostringstream o;
                    o << s.name << "(";
                    for (size_t i = 0; i < s.args.size(); i++) o << (i ? ", " : "") << expr_text(s.args[i]);
                    o << ")";
                    detail[p] = o.str();
                }
            }
        }
        std::vector<bool> none(g.nodes.size(), false);
        auto reg = g.regions_for(int(c), g.nodes[c].region, none);
        for (auto &[p, a] : acc) {
            FuncEdge e;
            e.producer = p;
            e.consumer = int(c);
            e.access = a;
            e.footprint = reg[p];
            e.detail = detail[p];
            e.sites = int(sites[p].size());
            e.scattered = scattered.count(p) > 0;
            e.uneven = uneven.count(p) > 0;
            if (!unmoved.count(p)) e.site_vars.assign(site_vars[p].begin(), site_vars[p].end());
            e.window = a == Access::Reduction && e.moves_with_consumer() && reduces_per_point(g.nodes[c].function) &&
                       follows_distinct_vars(e.site_vars);
            g.nodes[p].out_edges.push_back(int(g.edges.size()));
            g.nodes[c].in_edges.push_back(int(g.edges.size()));
            g.edges.push_back(e);
        }
    }
    return g;
}

std::string FuncGraph::describe() const {
    std::ostringstream o;
    for (auto &n : nodes) {
        o << (n.is_input ? "input " : n.is_output ? "output " : "func ") << n.name << " " << n.type << " [";
        for (size_t d = 0; d < n.region.size(); d++) o << (d ? "," : "") << n.region[d].extent();
        o << "]";
        if (n.is_reduction()) o << " reduces " << n.reduction_points;
        o << "\n";
        for (int e : n.in_edges)
            o << "    <- " << nodes[edges[e].producer].name << " (" << access_name(edges[e].access) << ")\n";
    }
    return o.str();
}

}  // namespace solder::autosched
