// require() on parameters, checked once per call instead of at every point. Halide 21 cannot
// compile require() inside a GPU kernel (its error call has no device code: "Error:
// halide_error_requirement_failed"), so a Func that calls it runs on the host, at host speed (a
// volume normalized with `require(gain > 0, ...)`: 1.97 ms against 0.02 for the same kernel on the
// device). Where the condition and the message name only scalar parameters, input sizes and
// constants, the check is the same at every point: it moves to the pipeline's own requirements
// (Pipeline::add_requirement), checked once before any stage runs, with the same message and the
// same error code, and the Func keeps the value the require() guarded.
#pragma once
#include <string>
#include <vector>

#include "Halide.h"

namespace solder::autosched {

struct Requirement {
    std::string func;  // the Func whose definition held it
    Halide::Expr condition;
    std::vector<Halide::Expr> message;  // Pipeline::add_requirement's error args
};

// Takes every such require() out of the definitions of the Funcs `outputs` need and returns them,
// one per require() taken out; a require() that reads a point, a Func or an input's values stays.
std::vector<Requirement> hoist_requirements(const std::vector<Halide::Func> &outputs);

// Adds them to `p`'s requirements, each condition once.
void add_requirements(Halide::Pipeline &p, const std::vector<Requirement> &requirements);

// The plan's note for a Func whose require() moved.
std::string hoisted_requirement_reason();

}  // namespace solder::autosched
