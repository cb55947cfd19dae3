// Realizes a Plan on the pipeline's Funcs through the schedules/ templates.
#pragma once
#include <set>
#include <string>
#include <utility>

#include "Halide.h"
#include "autosched/model/plan.h"

namespace solder::autosched {

// Throws std::runtime_error naming the Func when the plan does not match the pipeline. Returns the
// applied schedule as C++ source a generator can paste (schedules/writer/schedule_writer.h).
std::string apply_plan(const Plan &plan, const std::vector<Halide::Func> &outputs, const Halide::Target &target);

// The plan's kernels that apply_plan schedules on the host instead of the GPU, each with why: on
// OpenCL without cl_doubles, those computing in float64 (kOnHostReason); without cl_half, those
// holding a float16 (kOnHostF16Reason); on OpenCL, those counting bits (kOnHostBitCountReason); on
// any GPU, those calling what only the host compiles, a require() or a print() (kOnHostRequireReason).
std::vector<std::pair<std::string, std::string>>
kernels_on_host(const Plan &plan, const std::vector<Halide::Func> &outputs, const Halide::Target &target);
// The plan's kernels launched with others (horizontal fusion, split-K partials launched together)
// that would have to run on the host as kernels_on_host's do: apply_plan cannot run them there.
std::vector<std::string> launches_needing_host(const Plan &plan, const std::vector<Halide::Func> &outputs,
                                               const Halide::Target &target);
extern const char *const kOnHostReason;
extern const char *const kOnHostF16Reason;
extern const char *const kOnHostBitCountReason;
extern const char *const kOnHostRequireReason;

// The plan's Funcs that apply_plan leaves unvectorized, each with why. On CUDA: those converting
// to float16 or inlining a Func that does (kNoF16VectorsReason: Halide 21's PTX backend drops the
// conversion of a vector to f16 and stores the halves of the f32 bits), and those loading 8- or
// 16-bit values at shuffled points or inlining a Func that does (kNoNarrowShuffleVectorsReason:
// loads_narrow_shuffled, an LLVM assertion or a code generator that does not finish).
std::vector<std::pair<std::string, std::string>>
funcs_without_vectors(const Plan &plan, const std::vector<Halide::Func> &outputs, const Halide::Target &target);
extern const char *const kNoF16VectorsReason;
extern const char *const kNoNarrowShuffleVectorsReason;

}  // namespace solder::autosched
