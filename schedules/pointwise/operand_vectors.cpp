#include "schedules/pointwise/operand_vectors.h"

#include <algorithm>
#include <map>
#include <string>

#include "autosched/model/pipeline_funcs.h"

namespace solder {
using namespace Halide;

namespace {

// Every read of a pipeline input (its Func, `w_im`) in some Exprs: the args as names (empty where
// some arg is not a plain variable), and whether all its reads had the same ones.
struct InputReads : Internal::IRVisitor {
    struct Reads {
        Internal::Function func;
        std::vector<std::string> args;
        bool same = true;
    };
    std::map<std::string, Reads> reads;
    // Lets that name a variable (rfactor binds an RVar so: `let t = promise_clamped(k, ...)`).
    std::map<std::string, std::string> alias;
    using Internal::IRVisitor::visit;
    void visit(const Internal::Let *op) override {
        op->value.accept(this);
        Expr v = op->value;
        if (const auto *c = v.as<Internal::Call>(); c && (c->is_intrinsic(Internal::Call::promise_clamped) ||
                                                          c->is_intrinsic(Internal::Call::unsafe_promise_clamped)))
            v = c->args[0];
        if (const auto *var = v.as<Internal::Variable>()) alias[op->name] = name_of(var);
        op->body.accept(this);
    }
    std::string name_of(const Internal::Variable *v) const {
        auto it = alias.find(v->name);
        return it == alias.end() ? v->name : it->second;
    }
    void visit(const Internal::Call *op) override {
        Internal::IRVisitor::visit(op);
        if (op->call_type != Internal::Call::Halide || !op->func.defined()) return;
        Internal::Function f(op->func);
        if (!is_input_wrapper(f)) return;
        std::vector<std::string> args;
        for (const Expr &a : op->args) {
            const auto *v = a.as<Internal::Variable>();
            if (!v) {
                args.clear();
                break;
            }
            args.push_back(name_of(v));
        }
        auto it = reads.find(op->name);
        if (it == reads.end())
            reads.emplace(op->name, Reads{f, args, !args.empty()});
        else
            it->second.same &= it->second.args == args;
    }
};

InputReads reads_in(const std::vector<Expr> &exprs) {
    InputReads r;
    for (const Expr &e : exprs) e.accept(&r);
    return r;
}

}  // namespace

OperandVectors operand_vectors(const Func &m, int dx, int dy, int width) {
    OperandVectors ov;
    const Internal::Function fn = m.function();
    if (fn.updates().size() != 1 || has_specializations(fn)) return ov;
    const Internal::Definition &u = fn.update(0);
    const auto &rvars = u.schedule().rvars();
    if (rvars.empty()) return ov;
    const std::string first = rvars[0].var;
    std::vector<std::string> mu;
    for (const Expr &a : u.args()) {
        const auto *v = a.as<Internal::Variable>();
        mu.push_back(v ? v->name : std::string());
    }
    if (dx >= int(mu.size()) || dy >= int(mu.size()) || mu[size_t(dx)].empty() || mu[size_t(dy)].empty()) return ov;
    const InputReads r = reads_in(u.values());
    // (An input read in a stored index, or by the pure definition, is no operand.)
    const InputReads in_args = reads_in(u.args()), in_pure = reads_in(fn.definition().values());
    std::vector<Parameter> params;
    for (auto &[name, reads] : r.reads) {
        // (The first RVar at another arg too, `A(k, k)`, would make the wrapper span the steps in that
        // dim as well.)
        if (!reads.same || reads.args.size() < 2 || reads.args[0] != first || in_args.reads.count(name) ||
            in_pure.reads.count(name) || std::count(reads.args.begin(), reads.args.end(), first) > 1)
            continue;
        // (Read at the points of both tile dims, it would be a tile of its own: no operand.)
        std::vector<int> tile;
        for (const std::string &a : reads.args) tile.push_back(a == mu[size_t(dx)] ? 0 : a == mu[size_t(dy)] ? 1 : -1);
        if (std::count_if(tile.begin(), tile.end(), [](int t) { return t >= 0; }) > 1) continue;
        ov.operands.push_back(Func(reads.func));
        ov.tile_dims.push_back(tile);
        params.push_back(reads.func.definition().values()[0].as<Internal::Call>()->param);
        ov.inputs.push_back(params.back().name());
    }
    if (ov.operands.empty()) return ov;
    ov.branch = aligned_inputs(params, {rvars[0].min, rvars[0].extent}, width);
    if (!ov.branch.condition.defined()) ov = OperandVectors{};
    return ov;
}

void load_operand_vectors(ScheduleWriter &w, const OperandVectors &ov, const Func &m, const RVar &ko, int width,
                          int tile) {
    for (size_t i = 0; i < ov.operands.size(); i++) {
        Func wrapper = w.in(ov.operands[i], {m});
        w.compute_at(wrapper, m, ko);
        const std::vector<std::string> args = wrapper.function().args();
        const std::vector<int> &rows = ov.tile_dims[i];
        for (size_t d = 0; d < args.size(); d++)
            w.bound_storage(wrapper, Var(args[d]), d == 0 ? width : rows[d] >= 0 ? tile : 1);
        w.vectorize({wrapper}, Var(args[0]), width, TailStrategy::GuardWithIf);
        for (size_t d = 1; d < args.size(); d++)
            if (rows[d] >= 0) w.unroll({wrapper}, Var(args[d]), tile, TailStrategy::GuardWithIf);
    }
}

}  // namespace solder
