#include "autosched/schedule_score.h"

#include <map>

#include "autosched/partition.h"
#include "autosched/model/pipeline_funcs.h"

namespace solder::autosched {

ScheduleScore score_applied_schedule(const FuncGraph &g, const std::vector<Halide::Func> &outputs,
                                     const PlannerOptions &opt, const std::string &schedule,
                                     const std::map<std::string, std::string> &original) {
    std::map<std::string, Halide::Internal::Function> scheduled;
    for (auto &f : pipeline_functions(outputs)) {
        auto it = original.find(f.name());
        scheduled.emplace(it == original.end() ? f.name() : it->second, f);
    }
    std::vector<bool> root(g.nodes.size(), false);
    ScheduleScore s;
    s.schedule = schedule;
    for (size_t i = 0; i < g.nodes.size(); i++) {
        const FuncNode &n = g.nodes[i];
        if (n.is_input) {
            s.min_bytes += g.least_read_bytes(int(i));
            continue;
        }
        auto it = scheduled.find(n.name);
        // (A Func computed at the points of its own copy is stored as the copy.)
        root[i] = n.is_output ||
                  (it != scheduled.end() && (is_computed_at_root(it->second) || is_computed_at_own_copy(it->second)));
        if (n.is_output) s.min_bytes += n.bytes();
        if (root[i]) s.kernels++;
        if (root[i] && !n.is_output) s.roots.push_back(n.name);
    }
    Partition p = score_partition(g, opt, root);
    s.total_bytes = p.total_bytes;
    s.est_us = p.est_us;
    return s;
}

}  // namespace solder::autosched
