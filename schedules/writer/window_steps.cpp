#include "schedules/writer/window_steps.h"

#include <algorithm>
#include <string>
#include <vector>

#include "autosched/model/pipeline_funcs.h"

namespace solder {
using namespace Halide;

void window_per_thread(ScheduleWriter &w, Func m, Func root, const Var &tx, int rows, int dy, int shared_dim,
                       int shared_points) {
    w.compute_at(m, root, tx);
    const Internal::Function fn = m.function();
    w.unroll({m}, stage_pure_vars(fn, 0)[size_t(dy)]);
    if (shared_dim >= 0) w.unroll({m}, stage_pure_vars(fn, 0)[size_t(shared_dim)]);
    const std::vector<std::string> &args = fn.args();
    for (size_t d = 0; d < args.size(); d++)
        w.bound_storage(m, Var(args[d]), int(d) == dy ? rows : int(d) == shared_dim ? shared_points : 1);
    std::vector<VarOrRVar> mu = stage_pure_vars(fn, 1);
    const auto &rvars = fn.update(0).schedule().rvars();
    std::vector<VarOrRVar> order{mu[size_t(dy)]};
    if (shared_dim >= 0) order.push_back(mu[size_t(shared_dim)]);
    for (const auto &rv : rvars) order.push_back(RVar(rv.var));
    order.push_back(mu[0]);
    for (size_t d = 1; d < mu.size(); d++)
        if (int(d) != dy && int(d) != shared_dim) order.push_back(mu[d]);
    w.reorder({m, 0}, order);
    w.unroll({m, 0}, mu[size_t(dy)]);
    if (shared_dim >= 0) w.unroll({m, 0}, mu[size_t(shared_dim)]);
    // (An extent known only at run time, the window's size taken from a buffer, stays a loop: each
    // of its steps still serves the rows at once. With a shared dim's points as well, the steps
    // stay loops: unrolled under rows x points, nl_means's took 1666 against 1521 us with its 7
    // x 7 window's rows unrolled.)
    if (shared_dim < 0)
        for (const auto &rv : rvars)
            if (Internal::as_const_int(rv.extent)) w.unroll({m, 0}, RVar(rv.var));
}

void unroll_window_steps(ScheduleWriter &w, Func m, int64_t most_steps, int innermost, bool rest_unscheduled) {
    const Internal::Function fn = m.function();
    std::vector<bool> unrolled(fn.updates().size(), false);
    for (int u = 0; u < int(fn.updates().size()); u++) {
        const Internal::Definition &d = fn.update(u);
        const auto &rvars = d.schedule().rvars();
        if (rvars.empty() || has_predicate(d)) continue;
        int64_t steps = 1;
        bool constant = true;
        for (const auto &rv : rvars) {
            const auto e = Internal::as_const_int(rv.extent);
            if (!e)
                constant = false;
            else
                steps *= std::max<int64_t>(*e, 1);
        }
        if (constant && steps <= most_steps) {
            for (const auto &rv : rvars) w.unroll({m, u}, RVar(rv.var));
        } else if (innermost > 1) {
            const auto e = Internal::as_const_int(rvars[0].extent);
            const int factor = e ? int(std::clamp<int64_t>(*e, 1, innermost)) : innermost;
            if (factor < 2) continue;
            w.unroll({m, u}, RVar(rvars[0].var), factor, TailStrategy::GuardWithIf);
        } else {
            continue;
        }
        unrolled[size_t(u)] = true;
    }
    // The other updates left as they are, said so (else Halide warns that they were forgotten).
    if (rest_unscheduled && std::find(unrolled.begin(), unrolled.end(), true) != unrolled.end())
        for (int u = 0; u < int(fn.updates().size()); u++)
            if (!unrolled[size_t(u)]) w.unscheduled({m, u});
}

}  // namespace solder
