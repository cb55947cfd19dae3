// The random tensor family's extern stage (tests/support/random_tensor_pipelines.h), apart from
// Halide's compiler so that a runner of ahead-of-time libraries can link it: out = 2 in - 1 over
// any region, in float32 or float64, asking for the input at exactly the output's points. On a GPU
// target its input may be on the device; it copies it to the host and marks its output there.
#pragma once
#include "HalideRuntime.h"

extern "C" int solder_tensor_extern_affine(halide_buffer_t *in, halide_buffer_t *out);
