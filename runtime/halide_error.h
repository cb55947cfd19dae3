// Halide reports errors by throwing Halide::Error, which is not a std::exception. Solder turns it
// into std::runtime_error at its boundaries, with the context (app, schedule, step) in front.
#pragma once
#include <stdexcept>
#include <string>

#include "Halide.h"

namespace solder {

template<typename F> auto with_halide_errors(const std::string &context, F &&f) -> decltype(f()) {
    try {
        return f();
    } catch (const Halide::Error &e) {
        std::string m = e.what();
        while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.pop_back();
        throw std::runtime_error(context + ": " + m);
    }
}

}  // namespace solder
