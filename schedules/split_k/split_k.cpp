#include "schedules/split_k/split_k.h"

#include <stdexcept>

#include "autosched/model/pipeline_funcs.h"
#include "schedules/shared_split_k/shared_split_k_apply.h"
#include "schedules/split_k/split_k_schedule.h"

namespace solder::autosched {

void check_partials_name(const Halide::Func &partials, const std::string &func, const std::string &expected) {
    const std::string &n = partials.name();
    const std::string base = without_dollars(expected);
    const bool uniquified = n.size() > base.size() + 1 && n.compare(0, base.size(), base) == 0 &&
                            n[base.size()] == '$' &&
                            n.find_first_not_of("0123456789", base.size() + 1) == std::string::npos;
    if (n != expected && !uniquified)
        throw std::runtime_error("split-K of " + func + " made '" + partials.name() + "', the plan expects '" +
                                 expected + "'");
}

void prepare_split_k(ApplyContext &c, const KernelPlan &k) {
    if (!k.split || !k.split->launched_with.empty()) return;
    const SplitK &s = *k.split;
    if (s.group.empty()) {
        check_partials_name(schedule_split_k_partials(c.w, c.get(s.func), s.slice_rows, c.target, s.contraction_dx,
                                                      s.contraction_dy, s.interleaved),
                            s.func, s.partials);
        return;
    }
    prepare_shared_split_k(c, k);
}

}  // namespace solder::autosched
