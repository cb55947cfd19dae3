#include "schedules/pointwise/pointwise_reads.h"

#include <map>
#include <optional>
#include <set>

#include "autosched/model/device_limits.h"
#include "autosched/model/pipeline_funcs.h"

namespace solder::autosched {

namespace {

// A gathered table at least this large is read from DRAM (or L2) at each point: a lookup table
// of a few KB stays in each SM's L1, and its loads' latency is short (histogram equalization's
// tone curve: no faster with rows unrolled).
constexpr int64_t kGatherTableBytes = 1 << 20;

// Whether some read by the kernel's root or a Func fused into it is one `pred` accepts.
template<typename Pred> bool some_read(const FuncGraph &g, int root, const std::vector<int> &members, Pred pred) {
    std::vector<int> in{root};
    in.insert(in.end(), members.begin(), members.end());
    for (int n : in)
        for (int e : g.nodes[size_t(n)].in_edges)
            if (pred(g.edges[size_t(e)])) return true;
    return false;
}

// Scattered gathers per point (FuncEdge::scattered) from which a kernel's threads take one point
// each, in 2-D tiles (PointwiseParams), instead of vectors along the innermost dim.
constexpr int kScatteredSites = 4;

// Points of a dim (an image's channels) each thread may compute together (PointwiseParams::unroll_dim).
constexpr int64_t kMaxUnrolledPoints = 4;

// Whether a definition reads some Func or input at two or more constant points of one of its dims
// (a pixel's red, green and blue: f(x, y, 0), f(x, y, 1), f(x, y, 2)).
bool reads_constant_points(const Halide::Internal::Function &f) {
    struct Reads : Halide::Internal::IRGraphVisitor {
        std::map<std::pair<std::string, size_t>, std::set<int64_t>> points;  // (callee, arg) -> constants
        using Halide::Internal::IRGraphVisitor::visit;
        void visit(const Halide::Internal::Call *op) override {
            Halide::Internal::IRGraphVisitor::visit(op);
            if (op->call_type != Halide::Internal::Call::Halide && op->call_type != Halide::Internal::Call::Image)
                return;
            for (size_t i = 0; i < op->args.size(); i++)
                if (auto v = Halide::Internal::as_const_int(op->args[i])) points[{op->name, i}].insert(*v);
        }
    } reads;
    for (const Halide::Expr &e : f.definition().values()) e.accept(&reads);
    for (auto &[at, values] : reads.points)
        if (values.size() >= 2) return true;
    return false;
}

// Whether `f`'s definition reads some Func or input at indices that do not vary along its var
// `v` but do along another of its vars, none of them a constant (an alpha matte or a gain read by
// each channel of an RGB output: `al(x, y)` in `out(x, y, c)`, not `in(x, y, 0)`): unrolled along
// `v`, those loads are shared.
bool reads_across(const Halide::Internal::Function &f, const std::string &v) {
    struct Reads : Halide::Internal::IRGraphVisitor {
        std::string v;
        std::vector<std::string> others;
        bool found = false;
        using Halide::Internal::IRGraphVisitor::visit;
        void visit(const Halide::Internal::Call *op) override {
            Halide::Internal::IRGraphVisitor::visit(op);
            if (op->call_type != Halide::Internal::Call::Halide && op->call_type != Halide::Internal::Call::Image)
                return;
            bool along_v = false, along_other = false, constant = false;
            for (const Halide::Expr &a : op->args) {
                along_v |= Halide::Internal::expr_uses_var(a, v);
                constant |= Halide::Internal::is_const(a);
                for (auto &o : others) along_other |= Halide::Internal::expr_uses_var(a, o);
            }
            found |= !along_v && along_other && !constant;
        }
    } reads;
    reads.v = v;
    for (auto &a : f.args())
        if (a != v) reads.others.push_back(a);
    for (const Halide::Expr &e : f.definition().values()) Halide::Internal::substitute_in_all_lets(e).accept(&reads);
    return reads.found;
}

}  // namespace

bool has_f16_values(const Halide::Internal::Function &f) {
    return has_value_of_type(f, [](const Halide::Type &t) { return t.is_float() && !t.is_bfloat() && t.bits() == 16; });
}

bool f16_tiles(const FuncGraph &g, int root, const std::vector<int> &members) {
    if (has_f16_values(g.nodes[size_t(root)].function)) return true;
    for (int m : members)
        if (!g.nodes[size_t(m)].is_input && has_f16_values(g.nodes[size_t(m)].function)) return true;
    return false;
}

bool gathers(const FuncGraph &g, int root, const std::vector<int> &members) {
    return some_read(g, root, members, [&](const FuncEdge &E) {
        return E.access == Access::DataDependent && g.nodes[size_t(E.producer)].bytes() >= kGatherTableBytes;
    });
}

bool gathers_scattered(const FuncGraph &g, int root, const std::vector<int> &members) {
    return some_read(g, root, members, [](const FuncEdge &E) { return E.scattered && E.sites >= kScatteredSites; });
}

std::pair<int, int> snug_tile(int64_t e0, int64_t e1) {
    std::pair<int, int> best{256, 1};
    double best_use = -1;
    for (int tx = 8; tx <= 256; tx *= 2)
        for (int ty = 1; tx * ty <= 256; ty *= 2) {
            if (tx * ty < 64) continue;
            const double use =
                double(e0) / double(blocks_of(e0, tx) * tx) * double(e1) / double(blocks_of(e1, ty) * ty);
            const bool better = use > best_use + 1e-9 ||
                                (use > best_use - 1e-9 && (tx * ty > best.first * best.second ||
                                                           (tx * ty == best.first * best.second && tx > best.first)));
            if (better) best = {tx, ty}, best_use = use;
        }
    return best;
}

bool walks_own_rows(const FuncNode &M) {
    if (M.is_input || M.updates == 0 || M.dims.empty()) return false;
    struct Reads : Halide::Internal::IRGraphVisitor {
        std::string inner;
        bool rows = false, along_threads = false;
        using Halide::Internal::IRGraphVisitor::visit;
        void visit(const Halide::Internal::Call *op) override {
            Halide::Internal::IRGraphVisitor::visit(op);
            if ((op->call_type != Halide::Internal::Call::Halide && op->call_type != Halide::Internal::Call::Image) ||
                op->args.size() < 2)
                return;
            if (Halide::Internal::expr_uses_var(op->args[0], inner)) {
                along_threads = true;
                return;
            }
            rows |= uses_rvar(op->args[0]);
        }
    } reads;
    reads.inner = M.dims[0];
    for (const auto &u : M.function.updates())
        for (const Halide::Expr &e : u.values()) Halide::Internal::substitute_in_all_lets(e).accept(&reads);
    return reads.rows && !reads.along_threads;
}

int unrolled_points_dim(const FuncGraph &g, int root, const std::vector<int> &members) {
    const FuncNode &O = g.nodes[size_t(root)];
    if (O.updates > 0 || has_specializations(O.function) || (!O.is_output && !g.fixed_sizes())) return -1;
    int dim = -1;
    for (int d = int(O.region.size()) - 1; d >= 2 && dim < 0; d--)
        if (O.region[size_t(d)].extent() >= 2 && O.region[size_t(d)].extent() <= kMaxUnrolledPoints) dim = d;
    if (dim < 0) return -1;
    bool reads = reads_constant_points(O.function) || reads_across(O.function, O.dims[size_t(dim)]);
    for (int m : members)
        reads = reads || (!g.nodes[size_t(m)].is_input && reads_constant_points(g.nodes[size_t(m)].function));
    return reads ? dim : -1;
}

int memory_inner_dim(const FuncNode &O) {
    if (!O.is_output || O.is_input || O.function.output_buffers().empty()) return -1;
    const Halide::Parameter &buffer = O.function.output_buffers()[0];
    for (int d = 2; d < int(O.region.size()) && d < buffer.dimensions(); d++) {
        const Halide::Expr stride = buffer.stride_constraint(d);
        if (stride.defined() && Halide::Internal::is_const_one(stride) && O.region[size_t(d)].extent() >= 2 &&
            O.region[size_t(d)].extent() <= kMaxUnrolledPoints)
            return d;
    }
    return -1;
}

namespace {

// Math the GPU computes in tens of instructions or more (libdevice's sines reduce large arguments
// in a slow path): Halide's float calls by name, without their type suffix.
bool costly_math(const std::string &name) {
    static const char *const kCostly[] = {"sin",  "cos",   "tan",   "asin",  "acos", "atan", "atan2", "sinh", "cosh",
                                          "tanh", "asinh", "acosh", "atanh", "exp",  "log",  "pow",   "erf"};
    const std::string base = name.substr(0, name.rfind('_'));
    for (const char *c : kCostly)
        if (base == c) return true;
    return false;
}

// Counts the costly calls of an expression that depend on a var (through the lets that name it),
// and those that do not but depend on some other of the root's vars. (Math of no var at all, a
// scalar's, is the same for every point: walking a dim shares no more of it than of the rest.)
struct MathAlongVar : Halide::Internal::IRVisitor {
    std::set<std::string> dependent;  // the var, and lets whose values use it
    std::set<std::string> any;        // every var of the root, and lets whose values use one
    int varying = 0, invariant = 0;
    using IRVisitor::visit;
    static bool uses(const Halide::Expr &e, const std::set<std::string> &names) {
        struct Uses : Halide::Internal::IRVisitor {
            const std::set<std::string> *names;
            bool found = false;
            using IRVisitor::visit;
            void visit(const Halide::Internal::Variable *v) override { found = found || names->count(v->name) > 0; }
        } u;
        u.names = &names;
        e.accept(&u);
        return u.found;
    }
    void visit(const Halide::Internal::Let *op) override {
        if (uses(op->value, dependent)) dependent.insert(op->name);
        if (uses(op->value, any)) any.insert(op->name);
        IRVisitor::visit(op);
    }
    void visit(const Halide::Internal::Call *op) override {
        if (op->call_type == Halide::Internal::Call::PureExtern && costly_math(op->name)) {
            if (uses(op, dependent))
                varying++;
            else if (uses(op, any))
                invariant++;
        }
        IRVisitor::visit(op);
    }
};

// `e` with each call to the pure Func `f` replaced by its value at the call's args (Halide's own
// inline_function inspects the Func's schedule, which is not yet set while the plan is made).
Halide::Expr inlined(const Halide::Expr &e, const Halide::Internal::Function &f) {
    struct Inline : Halide::Internal::IRMutator {
        const Halide::Internal::Function *f;
        using IRMutator::visit;
        Halide::Expr visit(const Halide::Internal::Call *op) override {
            Halide::Expr call = IRMutator::visit(op);
            const auto *c = call.as<Halide::Internal::Call>();
            if (!c || c->call_type != Halide::Internal::Call::Halide || c->name != f->name()) return call;
            std::map<std::string, Halide::Expr> at;
            for (size_t i = 0; i < f->args().size() && i < c->args.size(); i++) at[f->args()[i]] = c->args[i];
            return Halide::Internal::substitute(at, f->values()[size_t(c->value_index)]);
        }
    } m;
    m.f = &f;
    return m.mutate(e);
}

// The most Funcs fused into the root that invariant_math_dim inlines.
constexpr size_t kInvariantMathFused = 8;

// The most calls of Funcs fused into the root that inlined_values inlines, over the root's and
// their definitions: each call is a copy of the callee's expression, and copies of copies
// multiply (a chain of 3 x 3 stencils, 9 per level).
constexpr int kInlinedCalls = 32;

// The root's values with the Funcs fused into it inlined (each pass inlines one more level), or
// nothing where one of them is not pure, more than kInvariantMathFused are fused, or they are
// called more than kInlinedCalls times.
std::optional<std::vector<Halide::Expr>> inlined_values(const FuncGraph &g, int root, const std::vector<int> &members) {
    std::set<std::string> fused_names;
    std::vector<int> fused;
    for (int m : members) {
        const FuncNode &M = g.nodes[size_t(m)];
        if (m == root || M.is_input) continue;
        if (M.updates > 0 || M.function.outputs() != 1) return std::nullopt;
        fused.push_back(m);
        fused_names.insert(M.name);
    }
    if (fused.size() > kInvariantMathFused) return std::nullopt;
    struct Calls : Halide::Internal::IRVisitor {
        const std::set<std::string> *names;
        int n = 0;
        using IRVisitor::visit;
        void visit(const Halide::Internal::Call *c) override {
            n += c->call_type == Halide::Internal::Call::Halide && names->count(c->name);
            IRVisitor::visit(c);
        }
    } calls;
    calls.names = &fused_names;
    for (int n : fused)
        for (const auto &v : g.nodes[size_t(n)].function.values()) v.accept(&calls);
    for (const auto &v : g.nodes[size_t(root)].function.values()) v.accept(&calls);
    if (calls.n > kInlinedCalls) return std::nullopt;
    std::vector<Halide::Expr> values = g.nodes[size_t(root)].function.values();
    for (size_t pass = 0; pass < fused.size(); pass++)
        for (int m : fused)
            for (auto &v : values) v = inlined(v, g.nodes[size_t(m)].function);
    return values;
}

// Counts costly operations (invariant_chain's) that use neither of the tile's vars but some loaded
// value or another of the root's vars.
struct CostlyInvariant : Halide::Internal::IRVisitor {
    std::set<std::string> tile;   // the tile's vars, and lets whose values use them
    std::set<std::string> other;  // the root's other vars, and lets whose values use one
    int found = 0;
    using IRVisitor::visit;
    void check(const Halide::Expr &e) {
        if (!MathAlongVar::uses(e, tile) && (reads_memory(e) || MathAlongVar::uses(e, other))) found++;
    }
    void visit(const Halide::Internal::Let *op) override {
        if (MathAlongVar::uses(op->value, tile)) tile.insert(op->name);
        if (MathAlongVar::uses(op->value, other)) other.insert(op->name);
        IRVisitor::visit(op);
    }
    void visit(const Halide::Internal::Div *op) override {
        // Integer division by a constant is a multiply and shifts.
        if (op->type.is_float() || !Halide::Internal::is_const(op->b)) check(op);
        IRVisitor::visit(op);
    }
    void visit(const Halide::Internal::Mod *op) override {
        if (!op->type.is_float() && !Halide::Internal::is_const(op->b)) check(op);
        IRVisitor::visit(op);
    }
    void visit(const Halide::Internal::Call *op) override {
        if (op->call_type == Halide::Internal::Call::PureExtern &&
            (costly_math(op->name) || op->name.rfind("sqrt_", 0) == 0))
            check(op);
        IRVisitor::visit(op);
    }
};

}  // namespace

bool invariant_chain(const FuncGraph &g, int root, const std::vector<int> &members) {
    const FuncNode &O = g.nodes[size_t(root)];
    if (O.updates > 0 || O.dims.size() < 2 || has_specializations(O.function)) return false;
    const auto values = inlined_values(g, root, members);
    if (!values) return false;
    CostlyInvariant c;
    c.tile = {O.dims[0], O.dims[1]};
    c.other.insert(O.dims.begin() + 2, O.dims.end());
    for (const auto &v : *values) v.accept(&c);
    return c.found > 0;
}

int invariant_math_dim(const FuncGraph &g, int root, const std::vector<int> &members, int64_t min_threads) {
    const FuncNode &O = g.nodes[size_t(root)];
    if (O.updates > 0 || O.region.size() < 2 || has_specializations(O.function)) return -1;
    // Only where some Func of the kernel calls transcendental math (FuncNode::math_calls), and few
    // are fused into the root: each is inlined into it in turn, and an expression inlined through
    // a chain of stencils grows with each of their taps.
    int64_t math = O.math_calls;
    for (int m : members)
        if (m != root && !g.nodes[size_t(m)].is_input) math += g.nodes[size_t(m)].math_calls;
    if (math == 0) return -1;
    const auto inlined_vals = inlined_values(g, root, members);
    if (!inlined_vals) return -1;
    const std::vector<Halide::Expr> &values = *inlined_vals;
    int best = -1;
    for (int d = 1; d < int(O.region.size()); d++) {
        const int64_t e = O.region[size_t(d)].extent();
        if (e < 2 || e > kInvariantMathPoints || O.points() / e < min_threads) continue;
        MathAlongVar math;
        math.dependent.insert(O.dims[size_t(d)]);
        math.any.insert(O.dims.begin(), O.dims.end());
        for (auto &v : values) v.accept(&math);
        if (math.invariant > 0 && math.invariant >= math.varying && (best < 0 || e > O.region[size_t(best)].extent()))
            best = d;
    }
    return best;
}

// Blocks of 256 along the innermost dim; any kernel that fuses no reduction into a root that is
// not one (a reduction root's members are its inputs' producers, recomputed per point), or only
// reductions the root reads one to one, each computed in the thread that reads it.

}  // namespace solder::autosched
