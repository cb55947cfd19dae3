#include "schedules/shared_split_k/shared_split_k_apply.h"

#include <stdexcept>

#include "autosched/model/reduction_domain.h"
#include "schedules/split_k/split_k.h"

namespace solder::autosched {

std::vector<std::string> shared_split_members(ApplyContext &c, const std::vector<std::string> &group, int dim,
                                              std::vector<SharedSplitMember> &members) {
    std::vector<ReductionDomain> domains;
    for (auto &name : group) {
        Halide::Func f = c.get(name);
        auto d = reduction_domain(f.function());
        if (!d) throw std::runtime_error("shared split-K: " + name + " has no iteration domain to share");
        members.push_back({f, d->vars, d->reduced});
        domains.push_back(*d);
    }
    auto names = shared_position_names(domains, dim);
    if (!names) throw std::runtime_error("shared split-K: the loops of " + group[0] + "'s group cannot share names");
    return *names;
}

void prepare_shared_split_k(ApplyContext &c, const KernelPlan &k) {
    const SplitK &s = *k.split;
    std::vector<SharedSplitMember> members;
    auto names = shared_split_members(c, s.group, s.dim, members);
    auto partials = schedule_shared_split_k(c.w, members, names, s.dim, s.rows, s.vector, c.target);
    for (size_t i = 0; i < partials.size(); i++)
        check_partials_name(partials[i], s.group[i], partials_name(s.group[i]));
}

}  // namespace solder::autosched
