#include "runtime/fault_injection.h"

#include <cstdlib>

#include "core/unknown_name_error.h"

namespace solder {

InjectedFault injected_fault_from_env() {
    const char *v = std::getenv("SOLDER_INJECT_FAULT");
    std::string s = v ? v : "";
    if (s.empty()) return InjectedFault::None;
    if (s == "compile") return InjectedFault::Compile;
    if (s == "launch") return InjectedFault::Launch;
    throw UnknownNameError("unknown SOLDER_INJECT_FAULT value '" + s + "' (expected compile or launch)");
}

std::string injected_compile_fault_message(const std::string &app, const std::string &schedule) {
    return "SOLDER_INJECT_FAULT=compile: injected failure while applying schedule '" + schedule + "' to " + app;
}

}  // namespace solder
