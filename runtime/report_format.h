// How a run is shown: a readable block for people, and one JSON line for tools (the main job,
// benchmarks). Halide-free.
#pragma once
#include <string>

#include "runtime/app_runner.h"

namespace solder {

struct RunContext {
    std::string app, schedule, target, size, device;
    int loop_nests = 0;
    double compile_s = 0;
};

std::string format_report(const RunContext &ctx, const RunReport &r);
// Prefixed with "SOLDER_RESULT " so a parent process can find it among other output.
std::string result_json_line(const RunContext &ctx, const RunReport &r);
// Kernels as shown in tables: launches per run on GPU targets, loop nests on the host.
int64_t kernel_count(const RunContext &ctx, const RunReport &r);

}  // namespace solder
