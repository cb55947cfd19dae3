// Checks a buffer against the pipeline argument it is passed for, before the call. Halide checks
// the type and the number of dimensions itself, but not the shape a library was compiled for: an
// input larger than that, or an output smaller, runs without a word (the output then holds only
// part of the answer), and an input too small is reported as "accessed at 63, which is beyond the
// max (32)". Solder libraries are compiled for one shape (the app's size, recorded as the
// arguments' estimates), so the check wants exactly that shape; type and dimensions are checked
// first so every message has one form and names the argument. Halide-free.
#pragma once
#include <string>

#include "HalideRuntime.h"

namespace solder {

// "" when `buf` fits `arg`; otherwise a message naming the argument, what it expects and what it got.
// `exact_shape` false: type and dimensions only.
std::string check_buffer_argument(const halide_filter_argument_t &arg, int index, const halide_buffer_t *buf,
                                  bool exact_shape = true);
std::string halide_type_name(const halide_type_t &t);  // float32, int64, bfloat16, uint8x4 ...

}  // namespace solder
