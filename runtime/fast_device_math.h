// Fast device math for CUDA builds: exp compiles to the GPU's exp2 approximation (ex2.approx,
// through libdevice's __nv_fast_expf) instead of libdevice's accurate expf, an 18-FMA sequence that
// made softmax instruction-bound on the H100. This is what Triton, hence torch.compile, emits for
// exp. Relative error about 1e-6 for the arguments softmax and its kin see (|x| < 20), far below
// what bf16 or f16 outputs keep; large |x| lose more (the product with log2(e) is rounded).
// tanh likewise becomes 1 - 2 / (exp(2x) + 1) with that exp and an approximate division, instead
// of libdevice's tanhf (bias_gelu was instruction-bound on the H100): absolute error about 5e-7.
// Applied to a pipeline's Funcs before any schedule, so every schedule compiles the same math.
// SolderOptions::fast_math (SOLDER_DISABLE=fast_math, --disable fast_math) turns it off.
#pragma once
#include <vector>

#include "Halide.h"
#include "autosched/model/options.h"

namespace solder {

// Whether fast device math applies to `target` with `options`.
bool fast_device_math_enabled(const Halide::Target &target, const SolderOptions &options);
// Rewrites every f32 exp and tanh in the Funcs `outputs` depend on; returns how many Funcs changed.
int use_fast_device_math(const std::vector<Halide::Func> &outputs);

}  // namespace solder
