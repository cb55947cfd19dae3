// The `unfused` schedule: every Func compute_root, one kernel (or loop nest) each. The baseline
// every other schedule is compared to: it moves the most bytes and launches the most kernels.
#pragma once
#include <string>

#include "Halide.h"
#include "schedules/writer/schedule_writer.h"

namespace solder {

// Returns the schedule as C++ source (schedules/writer/schedule_writer.h).
std::string apply_unfused(const std::vector<Halide::Func> &outputs, const Halide::Target &target);
// Gives one Func (all its stages) its own simple kernel: the innermost pure dim split into blocks
// of 256 threads, the outer pure dims as grid dims; reduction loops stay serial inside each thread.
// On the host: the outermost pure loop in parallel.
void schedule_as_own_kernel(ScheduleWriter &w, Halide::Func f, const Halide::Target &target, int threads = 256);

}  // namespace solder
