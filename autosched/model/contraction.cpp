#include "autosched/model/contraction.h"

#include <algorithm>

#include "autosched/model/device_limits.h"
#include "autosched/model/generic_reason.h"
#include "autosched/model/pipeline_funcs.h"

namespace solder::autosched {
using namespace Halide;

int64_t update_steps(const FuncNode &M) {
    const Internal::Function &f = M.function;
    if (f.updates().size() != 1 || M.rvar_extents.size() != 1 || M.rvar_extents[0].empty()) return 0;
    if (varying_predicate(f.update(0))) return 0;
    int64_t steps = 1;
    for (int64_t e : M.rvar_extents[0]) steps *= std::max<int64_t>(e, 1);
    return steps;
}

bool contraction_over(const FuncNode &M, int dx, int dy) {
    if (M.is_input || !M.is_reduction() || M.dims.size() < 2 || dx == dy || update_steps(M) < kMinContractionSteps ||
        !reduces_per_point(M.function))
        return false;
    const Internal::Definition &u = M.function.update(0);
    if (size_t(std::max(dx, dy)) >= u.args().size()) return false;
    const auto *vx = u.args()[size_t(dx)].as<Internal::Variable>();
    const auto *vy = u.args()[size_t(dy)].as<Internal::Variable>();
    if (!vx || !vy) return false;
    struct Operands : Internal::IRGraphVisitor {
        std::string x, y;
        bool skips_x = false, skips_y = false, both = false;
        using Internal::IRGraphVisitor::visit;
        void visit(const Internal::Call *op) override {
            Internal::IRGraphVisitor::visit(op);
            if (op->call_type != Internal::Call::Halide && op->call_type != Internal::Call::Image) return;
            bool at_rvar = false, uses_x = false, uses_y = false;
            for (const Expr &a : op->args) {
                at_rvar |= uses_rvar(a);
                uses_x |= Internal::expr_uses_var(a, x);
                uses_y |= Internal::expr_uses_var(a, y);
            }
            if (!at_rvar) return;
            skips_x |= !uses_x, skips_y |= !uses_y, both |= uses_x && uses_y;
        }
    } ops;
    ops.x = vx->name, ops.y = vy->name;
    for (const Expr &v : u.values()) Internal::substitute_in_all_lets(v).accept(&ops);
    return ops.skips_x && ops.skips_y && !ops.both;
}

int64_t contraction_tiles(const FuncNode &M, int dx, int dy) {
    return blocks_of(M.region[size_t(dx)].extent(), kContractionSpan) *
           blocks_of(M.region[size_t(dy)].extent(), kContractionSpan);
}

int64_t points_beside(const FuncNode &M, int dx, int dy) {
    return M.points() / (M.region[size_t(dx)].extent() * M.region[size_t(dy)].extent());
}

bool contraction_somewhere(const FuncNode &M, int64_t extent) {
    const int n = int(std::min(M.dims.size(), M.region.size()));
    for (int dx = 0; dx < n; dx++)
        for (int dy = dx + 1; dy < n; dy++)
            if (M.region[size_t(dx)].extent() >= extent && M.region[size_t(dy)].extent() >= extent &&
                contraction_over(M, dx, dy))
                return true;
    return false;
}

// How `consumer`, a pure Func, reads `producer` where it reads it only at its own point with the
// dims in another order (`prod(x, y) = sum$1(y, x)`: Halide names an inline `sum`'s vars in the
// order its expression meets them): for each of the producer's dims, the consumer's dim its arg
// is. Empty where it reads it otherwise.
std::vector<int> permuted_read(const Internal::Function &consumer, const std::string &producer) {
    if (consumer.has_update_definition()) return {};
    struct Calls : Internal::IRGraphVisitor {
        std::string name;
        std::vector<std::string> vars;
        std::vector<int> perm;
        bool any = false, other = false;
        using Internal::IRGraphVisitor::visit;
        void visit(const Internal::Call *op) override {
            Internal::IRGraphVisitor::visit(op);
            if (op->name != name || op->call_type != Internal::Call::Halide) return;
            std::vector<int> p;
            for (const Expr &a : op->args) {
                const auto *v = a.as<Internal::Variable>();
                auto at = v ? std::find(vars.begin(), vars.end(), v->name) : vars.end();
                if (at == vars.end()) {
                    other = true;
                    return;
                }
                p.push_back(int(at - vars.begin()));
            }
            other |= p.size() != vars.size() || (any && p != perm);
            perm = p, any = true;
        }
    } calls;
    calls.name = producer;
    calls.vars = consumer.args();
    for (const Expr &v : consumer.values()) Internal::substitute_in_all_lets(v).accept(&calls);
    if (!calls.any || calls.other) return {};
    return calls.perm;
}

bool read_under_a_condition(const Internal::Function &consumer, const std::string &producer) {
    struct Reads : Internal::IRVisitor {
        std::string name;
        int depth = 0;
        bool found = false;
        using Internal::IRVisitor::visit;
        void branches(const std::vector<Expr> &values) {
            depth++;
            for (const Expr &v : values) v.accept(this);
            depth--;
        }
        void visit(const Internal::Select *op) override {
            op->condition.accept(this);
            branches({op->true_value, op->false_value});
        }
        void visit(const Internal::Call *op) override {
            if (op->is_intrinsic(Internal::Call::if_then_else)) {
                op->args[0].accept(this);
                branches(std::vector<Expr>(op->args.begin() + 1, op->args.end()));
                return;
            }
            found |= depth > 0 && op->name == name;
            Internal::IRVisitor::visit(op);
        }
    } reads;
    reads.name = producer;
    for (const Expr &v : consumer.values()) Internal::substitute_in_all_lets(v).accept(&reads);
    for (const Internal::Definition &u : consumer.updates())
        for (const Expr &v : u.values()) Internal::substitute_in_all_lets(v).accept(&reads);
    return reads.found;
}

}  // namespace solder::autosched
