// A lowering pass Solder adds to the pipelines it compiles: inside each GPU block loop, the
// comparisons `v + 1 <= e` of 32-bit ints are written `v < e`, and the loop is simplified again.
//
// Halide guards each stage of loops fused with compute_with by `v <= loop_max` of its own loop,
// which it keeps as `v + 1 <= e`; its simplifier proves `v < e` from a loop's bounds, not that
// form, so the guard stays where every block satisfies it (a side output's block loop is the root's).
// The Funcs the block computes are then computed under it too (Halide skips what an `if` does not
// need), barriers inside: an OpenCL compiler for the CPU (PoCL) copies the code after each barrier
// inside an `if`, and a row kernel with four per-block reductions did not compile in ten minutes.
#pragma once
#include "Halide.h"

namespace solder {

// A new pass for Pipeline::add_custom_lowering_pass (which deletes it).
Halide::Internal::IRMutator *new_block_guards_pass();

}  // namespace solder
