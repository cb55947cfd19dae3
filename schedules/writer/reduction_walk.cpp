#include "schedules/writer/reduction_walk.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "autosched/model/func_graph.h"
#include "schedules/writer/expr_source.h"

namespace solder {
using namespace Halide;

void unroll_walk(ScheduleWriter &w, const StageRef &s, const RVar &r, const Expr &extent) {
    std::optional<int64_t> n = Internal::as_const_int(Internal::simplify(extent));
    if (n && *n <= 1) return;
    int factor = n ? int(std::min<int64_t>(kLoadsInFlight, *n)) : kLoadsInFlight;
    w.unroll(s, r, factor, TailStrategy::GuardWithIf);
}

bool slice_count_writable(const Expr &steps) {
    return autosched::scalar_params_in(steps).empty() || !expr_source(steps).text.empty();
}

namespace {

// `f` and the copies of it (Func::in, Func::clone_in, copies of copies), `f` first.
void with_copies(const Func &f, std::vector<Func> &out) {
    out.push_back(f);
    for (const auto &kv : f.function().wrappers()) with_copies(Func(Internal::Function(kv.second)), out);
}

}  // namespace

void at_least_one_slice(ScheduleWriter &w, Func partials, const std::string &slice, const Expr &steps, int64_t rows) {
    if (autosched::scalar_params_in(steps).empty()) return;
    w.after_all([partials, slice, steps, rows](ScheduleWriter &w) {
        std::vector<Func> funcs;
        with_copies(partials, funcs);
        const Expr slices = max(Expr(1), (steps + Expr(int(rows - 1))) / Expr(int(rows)));
        int bound = 0;
        for (const Func &f : funcs) {
            if (!w.computed_at_root(f)) continue;
            for (const Var &v : f.args())
                if (v.name() == slice) {
                    w.bound(f, v, Expr(0), slices);
                    bound++;
                }
        }
        if (bound == 0)
            throw std::runtime_error("at_least_one_slice: neither " + partials.name() +
                                     " nor a copy of it is computed at root over a pure var " + slice);
    });
}

}  // namespace solder
