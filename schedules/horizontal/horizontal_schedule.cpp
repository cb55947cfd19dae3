#include "schedules/horizontal/horizontal_schedule.h"

#include <algorithm>
#include <set>

#include "autosched/model/pipeline_funcs.h"
#include "schedules/writer/schedule_writer.h"
#include "schedules/split_k/split_k_schedule.h"

namespace solder {
using namespace Halide;

void schedule_horizontal_1d(ScheduleWriter &w, const std::vector<Func> &roots, const Target &target,
                            const std::vector<bool> &adds_partials) {
    Var bx("h_bx"), tx("h_tx");
    for (size_t i = 0; i < roots.size(); i++) {
        Func f = roots[i];
        Var x(f.function().args()[0]);
        w.compute_root(f);
        // A split-K root: its partials added by kPartialLanes threads per result, or else unrolled
        // in one thread per result.
        Func spread;
        if (i < adds_partials.size() && adds_partials[i] && is_gpu_target(target)) {
            spread = spread_partials_sum(w, f);
            if (!spread.defined()) unroll_partials_sum(w, f);
        }
        // Stage by stage (a reduction's init, then its update): each tiled over x alike, and fused
        // with the first root's same stage.
        for (int stage = -1; stage < int(f.function().updates().size()); stage++) {
            StageRef s{f, stage};
            if (is_gpu_target(target)) {
                const int tile = stage == 0 && spread.defined() ? 256 / kPartialLanes : 256;
                w.gpu_tile(s, x, bx, tx, tile, TailStrategy::GuardWithIf);
            } else {
                w.split(s, x, bx, tx, 1024, TailStrategy::GuardWithIf);
                w.parallel(s, bx);
                // Pure roots only, as before stage-by-stage fusion: a reduction root vectorized here
                // wrote past its output on the host (random seed 451's batch crashed).
                if (f.function().updates().empty()) w.vectorize(s, tx, 8, TailStrategy::Auto);
            }
            if (i > 0) w.compute_with(s, {roots[0], stage}, bx);
        }
        if (spread.defined()) {
            // Per block: a thread per (result, lane), each adding its share with its loads unrolled.
            std::vector<Var> pv = pure_vars(spread);  // the root's x, then the lane
            w.compute_at(spread, f, bx);
            w.gpu_threads({spread}, pv[0], pv[1]);
            const auto &rvars = spread.function().update(0).schedule().rvars();
            std::vector<VarOrRVar> order;
            for (auto &rv : rvars) order.push_back(RVar(rv.var));
            order.push_back(pv[0]);
            order.push_back(pv[1]);
            w.reorder({spread, 0}, order);
            w.gpu_threads({spread, 0}, pv[0], pv[1]);
            // Innermost first, while the loads in flight stay within kPartialsInFlight.
            int64_t in_flight = 1;
            for (auto &rv : rvars) {
                auto e = Internal::as_const_int(Internal::simplify(rv.extent));
                if (!e || *e <= 1 || in_flight * *e > kPartialsInFlight) break;
                w.unroll({spread, 0}, RVar(rv.var), int(*e), TailStrategy::GuardWithIf);
                in_flight *= *e;
            }
        }
    }
}

}  // namespace solder
