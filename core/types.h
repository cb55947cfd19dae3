// The element types and shapes of tensors, shared by every layer (the tensor layer, the apps, the
// runtime). No libHalide: only the runtime's halide_type_t.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "HalideRuntime.h"

namespace solder {

// Element types of app tensors. BF16 is stored as uint16 bits (Halide's bfloat16 is broken on
// CUDA, issue 8311); every BF16 value crosses to f32 through core/bf16.h.
enum class DType { F32, F16, I32, I64, BF16, U8, U16, I8, I16, F64 };

const char *dtype_name(DType t);
int dtype_bytes(DType t);
bool dtype_is_float(DType t);
halide_type_t dtype_halide_type(DType t);  // storage type (BF16 -> uint16)

// A tensor's shape in row-major order: the last axis is contiguous. Halide's dimension 0 is the
// innermost, so a Halide buffer of this tensor has the sizes reversed.
using Shape = std::vector<int64_t>;
std::string shape_str(const Shape &s);
int64_t shape_numel(const Shape &s);

}  // namespace solder
