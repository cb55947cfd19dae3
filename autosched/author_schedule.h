// Schedules written before auto-scheduling. A pipeline may reach the planner with directives its
// author (or an earlier auto-scheduling run) already applied: `a.compute_at(out, y)`,
// `out.split(x, xo, xi, 16)`, `b.compute_root().vectorize(x, 8)`. Written over, they broke the
// plan (a split's variable no longer there, a Func computed inside loops that were retiled) or
// silently left a Func on the host (compute_root() without GPU loops). Halide's own auto-schedulers
// refuse most of them; Solder clears them, keeps what the author decided about where a Func is
// stored (compute_root(): a kernel boundary), and says so.
//
// Kept as they are: bounds (bound, align_bounds), estimates, specializations, wrappers (Func::in)
// and tracing: they are the algorithm's or the caller's, not the schedule's.
#pragma once
#include <string>
#include <vector>

#include "Halide.h"

namespace solder::autosched {

struct AuthorSchedule {
    std::string func;
    std::vector<std::string> directives;  // what was cleared, as the author would have written it
    bool computed_at_root = false;        // compute_root(): the planner keeps it stored
};

// Clears every schedule directive of the Funcs the outputs depend on, back to the schedule a
// freshly defined Func has, and returns what each Func carried (only Funcs that carried any).
std::vector<AuthorSchedule> clear_author_schedules(const std::vector<Halide::Func> &outputs);

// The plan's note for one Func, and the one-line warning for the caller.
std::string author_schedule_reason(const AuthorSchedule &a);
std::string author_schedule_warning(const std::vector<AuthorSchedule> &cleared);

}  // namespace solder::autosched
