// SOLDER_INJECT_FAULT: a test knob that makes the first attempt of a run fail the way a bad schedule
// fails on a real GPU, so the fallback path (runtime/fallback_run.h) can be tested on a machine
// without one. Halide-free.
//   compile  applying the schedule throws a Halide::CompileError (runtime/app_build.cpp)
//   launch   every kernel launch of the library returns the driver's out-of-resources error
//            (CL_OUT_OF_RESOURCES / CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, runtime/launch_hooks.cpp),
//            so Halide's real error path runs; GPU targets only
// Only the library being tried gets the fault; the fallback library never does.
#pragma once
#include <string>

namespace solder {

enum class InjectedFault { None, Compile, Launch };

// Reads SOLDER_INJECT_FAULT; throws UnknownNameError naming the value and the valid ones.
InjectedFault injected_fault_from_env();
std::string injected_compile_fault_message(const std::string &app, const std::string &schedule);

}  // namespace solder
