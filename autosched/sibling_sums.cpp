#include "autosched/sibling_sums.h"

#include <map>
#include <optional>
#include <set>

#include "autosched/model/pipeline_funcs.h"

namespace solder::autosched {

using namespace Halide;
using namespace Halide::Internal;

namespace {

using Op = FoldedUpdate::Op;

// A Func of the header's form: `f(pure) = init; f(pure) = op(f(pure), added)` over its RDom.
struct Member {
    Function f;
    FoldedUpdate fold;
};

std::optional<Member> as_member(const Function &f) {
    if (!f.wrappers().empty() || !f.schedule().bounds().empty()) return std::nullopt;
    const std::optional<FoldedUpdate> fold = folded_update(f);
    if (!fold) return std::nullopt;
    return Member{f, *fold};
}

// The RDom `e`'s RVars belong to (undefined where it names none).
ReductionDomain rdom_of(const Expr &e) {
    struct Find : IRVisitor {
        ReductionDomain found;
        using IRVisitor::visit;
        void visit(const Variable *v) override {
            if (v->reduction_domain.defined()) found = v->reduction_domain;
        }
    } find;
    e.accept(&find);
    return find.found;
}

// What `m` adds, over the RDom of `to` instead of its own: where both Funcs have the same pure vars
// and their RDoms the same bounds in order (two RDoms a user wrote alike, `RDom r1(0, w), r2(0, w)`),
// its RVars renamed as the other's; nothing where they differ.
std::optional<Expr> added_in_rdom_of(const Member &m, const Member &to) {
    if (m.f.args() != to.f.args()) return std::nullopt;
    const auto &rm = m.f.update(0).schedule().rvars(), &rt = to.f.update(0).schedule().rvars();
    if (rm.size() != rt.size()) return std::nullopt;
    const ReductionDomain dom = rdom_of(to.fold.added);
    if (!dom.defined()) return std::nullopt;
    std::map<std::string, Expr> renamed;
    for (size_t k = 0; k < rm.size(); k++) {
        if (!equal(rm[k].min, rt[k].min) || !equal(rm[k].extent, rt[k].extent)) return std::nullopt;
        if (rm[k].var != rt[k].var) renamed[rm[k].var] = Variable::make(Int(32), rt[k].var, dom);
    }
    return renamed.empty() ? m.fold.added : substitute(renamed, m.fold.added);
}

// The loads `e` makes: its calls to Funcs and inputs.
std::vector<Expr> loads_of(const Expr &e) {
    struct Loads : IRVisitor {
        std::vector<Expr> found;
        using IRVisitor::visit;
        void visit(const Call *c) override {
            IRVisitor::visit(c);
            if (c->call_type == Call::Halide || c->call_type == Call::Image) found.push_back(c);
        }
    } loads;
    e.accept(&loads);
    return loads.found;
}

bool share_a_load(const Member &a, const Member &b) {
    const std::vector<Expr> la = loads_of(a.fold.added), lb = loads_of(b.fold.added);
    for (auto &x : la)
        for (auto &y : lb)
            if (equal(x, y)) return true;
    return false;
}

// The Funcs a definition reads where a call cannot be retargeted: RDom bounds and predicates (the
// RDom's own copies of them are not the definition's), specializations' conditions.
std::set<std::string> funcs_read_in_bounds(const Function &g) {
    std::set<std::string> names;
    struct Calls : IRVisitor {
        std::set<std::string> *names;
        using IRVisitor::visit;
        void visit(const Call *c) override {
            IRVisitor::visit(c);
            if (c->call_type == Call::Halide) names->insert(c->name);
        }
    } calls;
    calls.names = &names;
    const auto visit_definition = [&](const Definition &d) {
        if (d.predicate().defined()) d.predicate().accept(&calls);
        for (auto &rv : d.schedule().rvars()) {
            rv.min.accept(&calls);
            rv.extent.accept(&calls);
        }
        for (auto &s : d.specializations())
            if (s.condition.defined()) s.condition.accept(&calls);
    };
    if (g.has_pure_definition()) visit_definition(g.definition());
    for (auto &u : g.updates()) visit_definition(u);
    return names;
}

// Every call to a member, made a call to its value of the Tuple Func.
struct ToWalked : IRMutator {
    std::map<std::string, int> index;
    Function walked;
    using IRMutator::visit;
    Expr visit(const Call *c) override {
        auto it = c->call_type == Call::Halide ? index.find(c->name) : index.end();
        if (it == index.end()) return IRMutator::visit(c);
        std::vector<Expr> args;
        for (auto &a : c->args) args.push_back(mutate(a));
        return Call::make(walked, args, it->second);
    }
};

Expr combined(Op op, const Expr &acc, const Expr &added) {
    switch (op) {
    case Op::Add: return acc + added;
    case Op::Max: return max(acc, added);
    case Op::Min: return min(acc, added);
    }
    return acc;
}

SiblingGroup rewrite(const std::vector<Member> &group, const std::vector<Function> &pipeline) {
    const Member &first = group[0];
    std::vector<Var> pure;
    for (auto &a : first.f.args()) pure.emplace_back(a);
    std::string name = without_dollars(first.f.name());
    for (size_t i = 1; i < group.size(); i++) name += "_" + without_dollars(group[i].f.name());
    Func walked(unique_name(name + "_walked"));
    std::vector<Expr> init, updated;
    for (auto &m : group) init.push_back(m.fold.init);
    walked(pure) = Tuple(init);
    for (size_t i = 0; i < group.size(); i++)
        updated.push_back(combined(group[i].fold.op, walked(pure)[int(i)], group[i].fold.added));
    walked(pure) = Tuple(updated);

    ToWalked to;
    to.walked = walked.function();
    SiblingGroup out;
    out.walked = walked.name();
    for (size_t i = 0; i < group.size(); i++) {
        to.index[group[i].f.name()] = int(i);
        out.members.push_back(group[i].f.name());
    }
    for (Function g : pipeline)
        if (!to.index.count(g.name())) g.mutate(&to);
    return out;
}

}  // namespace

std::vector<SiblingGroup> rewrite_sibling_reductions(const std::vector<Func> &outputs,
                                                     const std::set<std::string> &kept) {
    const std::vector<Function> pipeline = pipeline_functions(outputs);
    std::set<std::string> excluded = kept;
    for (auto &o : outputs) excluded.insert(o.name());
    for (const Function &g : pipeline) {
        if (g.has_extern_definition())
            for (auto &n : direct_callees(g)) excluded.insert(n);
        for (auto &n : funcs_read_in_bounds(g)) excluded.insert(n);
    }
    std::vector<Member> members;
    for (const Function &f : pipeline)
        if (!excluded.count(f.name()))
            if (auto m = as_member(f)) members.push_back(*m);

    // What each member reads, directly or through other Funcs.
    std::map<std::string, std::set<std::string>> reads;
    for (auto &m : members) {
        std::set<std::string> &r = reads[m.f.name()];
        for (auto &[n, g] : find_transitive_calls(m.f)) r.insert(n);
    }
    const auto apart = [&](const Member &a, const Member &b) {
        return !reads[a.f.name()].count(b.f.name()) && !reads[b.f.name()].count(a.f.name());
    };

    std::vector<std::vector<Member>> groups;
    for (auto &m : members) {
        bool placed = false;
        for (auto &grp : groups) {
            const std::optional<Expr> added = added_in_rdom_of(m, grp[0]);
            if (!added) continue;
            Member joining = m;
            joining.fold.added = *added;
            bool fits = true, shares = false;
            for (auto &other : grp) {
                fits = fits && apart(other, m);
                shares = shares || share_a_load(other, joining);
            }
            if (fits && shares) {
                grp.push_back(joining);
                placed = true;
                break;
            }
        }
        if (!placed) groups.push_back({m});
    }
    // (The pipeline's Funcs listed again for each group: an earlier group's Tuple Func may call this
    // group's members.)
    std::vector<SiblingGroup> done;
    for (auto &grp : groups)
        if (grp.size() >= 2) done.push_back(rewrite(grp, pipeline_functions(outputs)));
    return done;
}

std::string sibling_group_reason(const SiblingGroup &g) {
    std::string names;
    for (size_t i = 0; i < g.members.size(); i++)
        names += (i == 0 ? "" : i + 1 == g.members.size() ? " and " : ", ") + g.members[i];
    return "reductions over the same points that read a common input (" + names + ") are walked together as " +
           g.walked + ", a Tuple of their values, so what they share is read once";
}

}  // namespace solder::autosched
