// The dumps made from a run of a compiled library: `launch` (grid, block and shared memory of each
// kernel launch) and `bandwidth` (device time, bytes and effective bandwidth of each kernel, as
// nvFuser's effective-bandwidth dump). Halide-free: `solder run` and solder-exec on the GPU machine
// print the same.
#pragma once
#include <string>
#include <vector>

#include "autosched/model/device_profile.h"
#include "runtime/app_runner.h"
#include "runtime/dump_writer.h"
#include "runtime/pipeline_library.h"
#include "runtime/planned_kernels.h"

namespace solder {

std::string format_launch_dump(const RunReport &r, const std::vector<PlannedKernel> &plan, const std::string &target);
// Needs r.launch_us (RunOptions::time_kernels). Bytes come from the plan; launches no planned
// kernel claims (schedules other than solder) show time only.
std::string format_bandwidth_dump(const RunReport &r, const std::vector<PlannedKernel> &plan, const std::string &target,
                                  int runs, const autosched::DeviceProfile &device = {});

// Prints the run dumps `dumps` asks for; the planned kernels come from the library's info record.
void write_run_dumps(const DumpWriter &dumps, const RunReport &r, const PipelineLibrary &lib, int runs);

}  // namespace solder
