// The one error type of the tensor layer: the op's name and what was wrong, never a crash.
#pragma once
#include <stdexcept>
#include <string>

namespace solder::lang {

struct LangError : std::runtime_error {
    LangError(const std::string &op, const std::string &what) : std::runtime_error(op + ": " + what) {}
};

}  // namespace solder::lang
