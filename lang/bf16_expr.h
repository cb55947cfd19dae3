// bfloat16 <-> float32 as Halide Exprs over uint16 storage. Halide's own bfloat16 type is broken
// on CUDA (Halide issue 8311), so Solder never uses it: bf16 values live as 16-bit bits and are
// widened to f32 for arithmetic. Same rounding as core/bf16.h (nearest, ties to even).
#pragma once
#include "Halide.h"

namespace solder::lang {

Halide::Expr bf16_to_f32(const Halide::Expr &bits);
Halide::Expr f32_to_bf16(const Halide::Expr &f);

}  // namespace solder::lang
