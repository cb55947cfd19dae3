// bfloat16 on GPU targets. Halide 21 aborts (an LLVM assertion) when it compiles any bfloat16
// conversion or arithmetic for CUDA (Halide issue 8311), so a pipeline with a BFloat(16) input,
// output or cast could not be built there whatever its schedule. Before planning for a GPU target,
// every bf16 operation in the pipeline's definitions is rewritten into the same values computed
// with 16- and 32-bit integers and f32: a bf16 value widens to f32 by a shift of its bits, and
// narrows by rounding its f32 bits to the nearest even (Halide's own rule); arithmetic, min/max,
// abs and lerp of bf16 values are done in f32 and rounded back after each operation, comparisons
// in f32. bf16 loads, stores and selects stay as they are, so the pipeline's inputs, outputs and
// storage keep their type. The Funcs are changed in place (they share their definitions with the
// caller's); on the host, where Halide emulates bf16 itself the same way, nothing is rewritten.
#pragma once
#include <string>
#include <vector>

#include "Halide.h"

namespace solder::autosched {

// Rewrites the bf16 operations of every Func of the pipeline when `target` has a GPU feature;
// returns the Funcs that had any (in pipeline order).
std::vector<std::string> emulate_bf16_for_gpu(const std::vector<Halide::Func> &outputs, const Halide::Target &target);

extern const char *const kBf16EmulatedReason;

}  // namespace solder::autosched
