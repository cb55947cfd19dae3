// How a thread walks the points of a reduction it sums serially (a row in strides, a slice of
// rows): unrolled, so that its loads are in flight together.
#pragma once
#include <cstdint>
#include <string>

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

// A reduction's walk of `steps` points (an RVar's extent, or several fused) cut into slices of
// `rows`, each slice's partial a point of `partials` (rfactor's intermediate: split-K, a total
// reduction, a scatter's chunks) along its pure var named `slice`. Where `steps` reads a scalar
// parameter (a sum over the first n rows) the slices may be none at run time, n = 0: Halide would
// allocate the partials with no bytes, which its GPU runtimes refuse (the OpenCL one aborts). There
// the Func that stores them in global memory (`partials` or a copy of it, Func::in, computed at
// root) is bound to one slice at least (Func::bound over the parameter, in the source as
// expr_source writes it), once every kernel is scheduled (ScheduleWriter::after_all: the copy may
// come later); the slice more reduces no point, its partial is the identity, and no reader reads
// it. Elsewhere nothing is done.
void at_least_one_slice(ScheduleWriter &w, Halide::Func partials, const std::string &slice, const Halide::Expr &steps,
                        int64_t rows);
// Whether at_least_one_slice can write its bound for `steps`: it reads no scalar parameter, or the
// schedule's source can name it (expr_source). Templates that cut walks into slices refuse others.
bool slice_count_writable(const Halide::Expr &steps);

}  // namespace solder
