#include "autosched/cloned_reductions.h"

#include <map>
#include <set>

#include "autosched/model/pipeline_funcs.h"

namespace solder::autosched {

using namespace Halide;
using namespace Halide::Internal;

namespace {

// Whether every call `caller` makes to `callee` is at the caller's pure vars in order, and the
// caller is pure and unspecialized (its definition is all that calls the callee). (A caller at
// some of its vars, a pixel's nearest palette entry read by each of its channels, is not: the
// palette's index kernel computing its own copy of the argmin measured 124.4 us on the H100
// against 60.3 reading the stored entry.)
bool calls_point_for_point(const Function &caller, const std::string &callee) {
    if (caller.has_extern_definition() || !caller.updates().empty() || has_specializations(caller) ||
        !caller.has_pure_definition())
        return false;
    struct Check : IRVisitor {
        std::string callee;
        std::vector<std::string> args;
        bool ok = true;
        using IRVisitor::visit;
        void visit(const Call *c) override {
            IRVisitor::visit(c);
            if (c->call_type != Call::Halide || c->name != callee) return;
            if (c->args.size() != args.size()) {
                ok = false;
                return;
            }
            for (size_t d = 0; d < args.size(); d++) {
                const auto *v = c->args[d].as<Variable>();
                ok = ok && v && v->name == args[d];
            }
        }
    } check;
    check.callee = callee;
    check.args = caller.args();
    for (auto &v : caller.values()) v.accept(&check);
    return check.ok;
}

// Steps of all of `f`'s updates per point at the estimates; -1 where one is not a constant.
int64_t steps_per_point(const Function &f, const AtEstimates &estimates) {
    int64_t steps = 0;
    for (auto &u : f.updates()) {
        int64_t points = 1;
        for (auto &rv : u.schedule().rvars()) {
            const int64_t e = estimates.extent(rv.extent);
            if (e < 0) return -1;
            points *= e;
        }
        steps += points;
    }
    return steps;
}

// Whether `f` is a reduction this rewrite may copy (the header's first rule), but for its steps
// (few_steps: the estimates build the pipeline's graph, asked only where the rest holds).
bool copyable(const Function &f, const std::set<std::string> &excluded) {
    if (excluded.count(f.name()) || f.has_extern_definition() || f.updates().empty() || !f.wrappers().empty() ||
        !f.schedule().bounds().empty() || has_specializations(f))
        return false;
    for (auto &u : f.updates())
        if (has_predicate(u) || !writes_pure_vars_in_order(f, u) || !u.specializations().empty()) return false;
    return true;
}

bool few_steps(const Function &f, const AtEstimates &estimates) {
    const int64_t steps = steps_per_point(f, estimates);
    return steps > 0 && steps <= kMaxClonedSteps;
}

// A copy of `f` named after it: the same definitions, its calls to itself made calls to the copy.
Function copy_of(const Function &f, const std::string &tag) {
    Func c(unique_name(without_dollars(f.name()) + "_" + tag));
    std::vector<Var> pure;
    for (auto &a : f.args()) pure.emplace_back(a);
    auto values = [&](const std::vector<Expr> &v) {
        std::vector<Expr> out;
        for (auto &e : v) out.push_back(calls_retargeted(e, f.name(), c.function()));
        return out;
    };
    const std::vector<Expr> init = f.values();
    if (init.size() == 1)
        c(pure) = init[0];
    else
        c(pure) = Tuple(init);
    for (auto &u : f.updates()) {
        const std::vector<Expr> v = values(u.values());
        if (v.size() == 1)
            c(u.args()) = v[0];
        else
            c(u.args()) = Tuple(v);
    }
    return c.function();
}

// `caller`'s calls to `from` made calls to `to`, in every definition (calls_retargeted on each
// of its expressions).
void retarget(Function caller, const std::string &from, const Function &to) {
    struct Retarget : IRMutator {
        std::string from;
        Function to;
        Expr mutate(const Expr &e) override { return calls_retargeted(e, from, to); }
        using IRMutator::mutate;
    } r;
    r.from = from;
    r.to = to;
    caller.mutate(&r);
}

}  // namespace

std::vector<ClonedReduction> clone_shared_small_reductions(const std::vector<Func> &outputs,
                                                           const AtEstimates &estimates,
                                                           const std::set<std::string> &kept) {
    const std::vector<Function> pipeline = pipeline_functions(outputs);
    std::set<std::string> output_names, excluded = kept;
    for (auto &o : outputs) output_names.insert(o.name()), excluded.insert(o.name());
    std::map<std::string, std::vector<Function>> callers;  // by callee, in pipeline order
    for (const Function &g : pipeline) {
        if (g.has_extern_definition())
            for (auto &n : direct_callees(g)) excluded.insert(n);
        for (auto &n : direct_callees(g))
            if (n != g.name()) callers[n].push_back(g);  // (a reduction's updates read itself)
    }
    auto all_outputs_point_for_point = [&](const std::vector<Function> &cs, const std::string &callee) {
        if (cs.size() < 2) return false;
        for (auto &c : cs)
            if (!output_names.count(c.name()) || !calls_point_for_point(c, callee)) return false;
        return true;
    };
    std::vector<ClonedReduction> out;
    for (const Function &f : pipeline) {
        if (!copyable(f, excluded)) continue;
        const std::vector<Function> &cs = callers[f.name()];
        ClonedReduction done;
        done.reduction = f.name();
        const bool direct = all_outputs_point_for_point(cs, f.name());
        const bool through_one = !direct && cs.size() == 1 && !excluded.count(cs[0].name()) &&
                                 calls_point_for_point(cs[0], f.name()) &&
                                 all_outputs_point_for_point(callers[cs[0].name()], cs[0].name());
        if ((!direct && !through_one) || !few_steps(f, estimates)) continue;
        if (direct) {
            for (size_t i = 1; i < cs.size(); i++) {
                const Function copy = copy_of(f, "for_" + without_dollars(cs[i].name()));
                retarget(cs[i], f.name(), copy);
                done.calls.push_back({cs[i], f, copy});
            }
        } else {
            const Function through = cs[0];
            const std::vector<Function> &readers = callers[through.name()];
            done.through = through.name();
            for (size_t i = 1; i < readers.size(); i++) {
                const std::string tag = "for_" + without_dollars(readers[i].name());
                Function t = copy_of(through, tag);
                retarget(t, f.name(), copy_of(f, tag));
                retarget(readers[i], through.name(), t);
                done.calls.push_back({readers[i], through, t});
            }
        }
        if (!done.calls.empty()) out.push_back(done);
    }
    return out;
}

void undo_cloned_reductions(const std::vector<ClonedReduction> &cloned) {
    for (auto &c : cloned)
        for (auto &call : c.calls) retarget(call.caller, call.copy.name(), call.original);
}

void redo_cloned_reductions(const std::vector<ClonedReduction> &cloned) {
    for (auto &c : cloned)
        for (auto &call : c.calls) retarget(call.caller, call.original.name(), call.copy);
}

std::string cloned_reduction_reason(const ClonedReduction &c, const std::string &dropped) {
    std::string outs;
    for (auto &call : c.calls) outs += (outs.empty() ? "" : ", ") + call.caller.name();
    const std::string what = "a small reduction several outputs read point for point" +
                             (c.through.empty() ? std::string() : " (through " + c.through + ")");
    if (!dropped.empty())
        return what + ", not copied for " + outs + ": the plan costs " + dropped + " without the copies";
    return what + ": " + outs +
           " read copies of their own, which their kernels can compute at each point instead of reading it stored";
}

}  // namespace solder::autosched
