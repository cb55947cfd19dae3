#include "schedules/writer/reduction_walk.h"

#include <algorithm>

namespace solder {
using namespace Halide;

void unroll_walk(ScheduleWriter &w, const StageRef &s, const RVar &r, const Expr &extent) {
    std::optional<int64_t> n = Internal::as_const_int(Internal::simplify(extent));
    if (n && *n <= 1) return;
    int factor = n ? int(std::min<int64_t>(kLoadsInFlight, *n)) : kLoadsInFlight;
    w.unroll(s, r, factor, TailStrategy::GuardWithIf);
}

}  // namespace solder
