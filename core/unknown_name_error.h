// A name Solder does not know (an app, schedule, target, or a word in a knob such as
// SOLDER_DISABLE). Its own type so the CLI can tell a typo (exit 2) from a failure (exit 1).
// Halide-free, header-only.
#pragma once
#include <stdexcept>

namespace solder {

struct UnknownNameError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

}  // namespace solder
