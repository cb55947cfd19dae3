// How a thread walks the points of a reduction it sums serially (a row in strides, a slice of
// rows): unrolled, so that its loads are in flight together.
#pragma once
#include "Halide.h"
#include "schedules/writer/schedule_writer.h"

namespace solder {

// A thread that walks rows (or a row in strides) adds each loaded value to its running sum: the
// add waits for the load, so without unrolling each thread keeps one load in flight, far too few
// to cover DRAM latency (the H100 profile showed 37% of peak DRAM bandwidth and scoreboard
// stalls). Unrolled by this much, the loads of a group issue back to back. Measured on the H100
// with fast exp: 16 against 8, layernorm 72.8 -> 65.0 us, softmax 72.1 -> 60.7, nvfuser_2146
// 622 -> 606, rmsnorm 58.7 either way (a 4096-wide bf16 row is 16 elements per lane: all in
// flight at once). Before fast exp, softmax was instruction-bound and 16 lost to 8.
constexpr int kLoadsInFlight = 16;

// Unrolls `r` (a walk of `extent` steps) by kLoadsInFlight, or less for a shorter walk. The outer
// loop keeps the name of `r` (Stage::unroll), so walks of several stages can still be fused.
void unroll_walk(ScheduleWriter &w, const StageRef &s, const Halide::RVar &r, const Halide::Expr &extent);

}  // namespace solder
