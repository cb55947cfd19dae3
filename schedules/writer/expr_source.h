// Schedule directives whose sizes are known only at run time (a reduction over the first n points,
// n a scalar parameter) name that size in the schedule's C++ source: the Expr written as C++ over
// the pipeline's scalar parameters and its inputs' buffer fields, each found by name.
#pragma once
#include <functional>
#include <string>

#include "Halide.h"

namespace solder {

struct ExprSource {
    std::string text;           // empty: the Expr holds something the source cannot name
    bool names_inputs = false;  // calls kInputFieldHelperName (schedules/writer/aligned_vectors.h)
    bool names_params = false;  // calls kParamHelperName
};

// C++ for a lambda that gives a scalar parameter of the pipeline (an Expr) by its name.
extern const char *const kParamHelperName;
extern const char *const kParamHelper;

// `e` as C++ in a generator's schedule: constants (floats exactly, in hex), scalar parameters,
// inputs' buffer fields (`in.extent.0`), casts, + - * / % min max, comparisons, && || ! and
// select, floating-point math (sqrt, exp, floor, ...), abs and the bitwise operators, over scalar
// types, lets as their values. Anything else (a Func or buffer read, another call, a Var): empty
// text.
// An output's buffer fields (`out.min.0`) where `output_buffer` names that buffer (C++ for its
// OutputImageParam, by the buffer's name; empty: no output's).
ExprSource expr_source(const Halide::Expr &e,
                       const std::function<std::string(const std::string &)> &output_buffer = nullptr);

}  // namespace solder
