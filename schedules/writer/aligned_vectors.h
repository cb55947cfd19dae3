// Vector accesses at sizes known only at run time. A kernel whose row extent is a run-time value
// guards its vector tails (ScheduleWriter::guard_every_tail), and Halide then cannot prove any
// vector access aligned: every load and store of the kernel is a 4-byte (or 1-byte) one. Given a
// branch where the output's row extent, every buffer's row min and every buffer's outer strides are
// multiples of the vector width, Halide proves the accesses of whole vectors aligned and emits
// 16-byte loads and stores, and the guarded tails vanish from the vector loops. This is that branch:
// a Func::specialize of the kernel's root, made after every directive so that it copies the whole
// schedule, beside the general one (any size, any strides).
#pragma once
#include <string>
#include <vector>

#include "Halide.h"

namespace solder {

struct AlignedBranch {
    Halide::Expr condition;
    std::string source;         // the condition as C++ in a generator's schedule
    bool names_inputs = false;  // the source calls kInputFieldHelperName, defined by kInputFieldHelper
};

// C++ for a schedule's source: a lambda that gives an input buffer's field by the input's name.
extern const char *const kInputFieldHelperName;
extern const char *const kInputFieldHelper;

// The condition for `root` (a pipeline output) vectorized `width` wide along its dim 0: its own
// buffer and every input buffer `outputs` read. Undefined when there is nothing to state.
AlignedBranch aligned_branch(const Halide::Func &root, int width, const std::vector<Halide::Func> &outputs,
                             const std::string &root_id);

// The condition that every one of `inputs` (pipeline input buffers) has its rows start at whole
// vectors of `width` (its dim 0 min and the strides of its other dims multiples of it) and that
// each of `multiples` is a multiple of `width`: a constant, or a field of an input buffer
// (`x.dim(0).extent()`). Undefined where one of `multiples` is neither, or a constant that is no
// multiple.
AlignedBranch aligned_inputs(const std::vector<Halide::Parameter> &inputs, const std::vector<Halide::Expr> &multiples,
                             int width);

}  // namespace solder
