// A pipeline's algorithm as canonical text, for the compile cache's key (runtime/compile_cache.h):
// every Function reachable from the outputs with its types, definitions, reduction domains,
// estimates and bounds, and every input with its type, estimates and constraints.
//
// Names are replaced by their place in the graph (outputs first, then callees in the order the
// definitions call them): Halide makes Func names unique per process ("blur_x$1" the second time an
// app is built) and names unnamed Vars from a global counter, so the same app built twice must
// still print the same. Float constants are listed exactly (hex), since Halide's printer rounds.
#pragma once
#include <string>
#include <vector>

#include "Halide.h"

namespace solder {

// `inputs` first, in order (they are the library's leading arguments), then the scalar parameters
// (their types and estimates), then the Funcs.
std::string pipeline_fingerprint(const std::vector<Halide::ImageParam> &inputs,
                                 const std::vector<Halide::Func> &outputs,
                                 const std::vector<Halide::Argument> &scalars = {});

}  // namespace solder
