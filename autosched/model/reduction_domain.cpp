#include "autosched/model/reduction_domain.h"

#include <map>
#include <set>

#include "autosched/model/pipeline_funcs.h"

namespace solder::autosched {
using namespace Halide::Internal;

namespace {

// The first call (to a Func or an input) whose args are all bare variables from `names`, each of
// `names` exactly once.
class DomainCall : public IRVisitor {
public:
    explicit DomainCall(const std::set<std::string> &names) : names_(names) {}
    std::optional<std::vector<std::string>> found;

private:
    using IRVisitor::visit;
    const std::set<std::string> &names_;

    void visit(const Call *op) override {
        IRVisitor::visit(op);
        if (found || (op->call_type != Call::Halide && op->call_type != Call::Image)) return;
        if (op->args.size() != names_.size()) return;
        std::vector<std::string> vars;
        std::set<std::string> seen;
        for (auto &a : op->args) {
            const auto *v = a.as<Variable>();
            if (!v || !names_.count(v->name) || !seen.insert(v->name).second) return;
            vars.push_back(v->name);
        }
        found = vars;
    }
};

}  // namespace

std::optional<ReductionDomain> reduction_domain(const Function &f) {
    if (!f.get_contents().defined() || f.updates().size() != 1) return std::nullopt;
    const Definition &def = f.update(0);
    if (def.schedule().rvars().empty()) return std::nullopt;
    std::set<std::string> names(f.args().begin(), f.args().end());
    std::map<std::string, int> rvars;  // name -> index among the update's RVars
    for (auto &rv : def.schedule().rvars()) {
        rvars[rv.var] = int(rvars.size());
        names.insert(rv.var);
    }
    // A predicate (RDom::where) would have to hold in every member's slices alike.
    if (has_predicate(def)) return std::nullopt;
    DomainCall finder(names);
    for (auto &v : def.values()) v.accept(&finder);
    if (!finder.found) return std::nullopt;
    ReductionDomain d;
    for (auto &name : *finder.found) {
        auto it = rvars.find(name);
        d.vars.push_back(name);
        d.reduced.push_back(it != rvars.end());
        const bool r = it != rvars.end();
        d.rvar_index.push_back(r ? it->second : -1);
        d.rvar_min.push_back(r ? simplify(def.schedule().rvars()[size_t(it->second)].min) : Halide::Expr());
        d.rvar_extent.push_back(r ? simplify(def.schedule().rvars()[size_t(it->second)].extent) : Halide::Expr());
    }
    return d;
}

bool same_rvar_bounds(const ReductionDomain &a, const ReductionDomain &b) {
    if (a.reduced.size() != b.reduced.size()) return false;
    for (size_t p = 0; p < a.reduced.size(); p++)
        if (a.reduced[p] && b.reduced[p] &&
            !(equal(a.rvar_min[p], b.rvar_min[p]) && equal(a.rvar_extent[p], b.rvar_extent[p])))
            return false;
    return true;
}

std::optional<std::vector<std::string>> shared_position_names(const std::vector<ReductionDomain> &members, int walk) {
    if (members.empty()) return std::nullopt;
    const size_t n = members[0].vars.size();
    if (walk <= 0 || size_t(walk) >= n) return std::nullopt;
    std::vector<std::string> names(n);
    for (auto &m : members)
        if (m.vars.size() != n || m.reduced[0] || !m.reduced[size_t(walk)] ||
            m.vars[size_t(walk)] != members[0].vars[size_t(walk)])
            return std::nullopt;
    names[size_t(walk)] = members[0].vars[size_t(walk)];
    for (size_t p = 0; p < n; p++) {
        if (int(p) == walk) continue;
        for (auto &m : members) {
            if (m.reduced[p]) continue;
            if (names[p].empty())
                names[p] = m.vars[p];
            else if (names[p] != m.vars[p])
                return std::nullopt;
        }
        if (names[p].empty()) names[p] = "sk_d" + std::to_string(p);
    }
    // Within each member: its loops (pure vars, the new pure dims, the walk) all distinct, and no
    // new pure dim named like one of its RVars.
    for (auto &m : members) {
        std::set<std::string> used;
        for (size_t p = 0; p < n; p++) {
            if (!used.insert(names[p]).second) return std::nullopt;
            if (m.reduced[p] && int(p) != walk)
                for (size_t q = 0; q < n; q++)
                    if (q != p && m.vars[q] == names[p]) return std::nullopt;
        }
    }
    return names;
}

}  // namespace solder::autosched
