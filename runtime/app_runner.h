// Runs an app's compiled pipeline: makes its inputs, calls it, checks every output against the
// plain-C++ reference, then times it (warm-up, then the median of several synchronized runs; on a
// GPU by device events as do_bench does, and by the host clock).
// Halide-free: the same code runs here on host/OpenCL and on the GPU machine with CUDA.
#pragma once
#include <string>
#include <vector>

#include "apps/app_spec.h"
#include "runtime/output_check.h"
#include "runtime/pipeline_library.h"

namespace solder {

struct RunOptions {
    AppSize size = AppSize::Full;
    uint64_t seed = 1;
    int warmup = 2;
    int iters = 10;
    bool check = true;
    bool flush_l2 = false;  // before each timed run (GPU only; see runtime/l2_flush.h)
    // Also time every kernel launch on the device (the bandwidth dump), in extra runs after the
    // wall-clock ones; see runtime/kernel_timing.h.
    bool time_kernels = false;
};

struct RunReport {
    bool ran = false;      // the pipeline executed without a runtime error
    std::string error;     // what went wrong, naming the app
    std::string fallback;  // set when the requested schedule failed and the fallback one ran (runtime/fallback_run.h)
    std::vector<OutputCheck> checks;
    bool pass = false;  // ran, and every output matched the reference
    double max_abs_err = 0;
    int64_t launches_per_run = 0;  // GPU kernel launches in one call (0 on host)
    std::vector<solder_launch_record> launches;
    std::vector<double> launch_us;  // time_kernels: median device time of each of `launches`
    // Median time of one call: on a GPU with the L2 flushed, device time between CUDA events
    // (runtime/event_timer.h); elsewhere the host clock around call and synchronization.
    double median_us = 0;
    double wall_us = 0;  // the host clock around call and synchronization, launch overhead included
    int64_t min_bytes = 0;
    double effective_gbps() const { return median_us > 0 ? double(min_bytes) / (median_us * 1e3) : 0; }
};

RunReport run_app(const AppSpec &app, PipelineLibrary &lib, const RunOptions &opt);

}  // namespace solder
