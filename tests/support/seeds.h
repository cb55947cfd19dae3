// The seeds a random family's test runs: `ci`, or, where the environment variable `var` is set to
// N, seeds 1 to N (a longer run by hand).
#pragma once
#include <cstdint>
#include <cstdlib>
#include <vector>

namespace solder::testing {

inline std::vector<uint64_t> seeds_from_env(const char *var, std::vector<uint64_t> ci) {
    const char *e = std::getenv(var);
    if (e == nullptr) return ci;
    std::vector<uint64_t> s;
    for (int i = 1; i <= std::atoi(e); i++) s.push_back(uint64_t(i));
    return s;
}

}  // namespace solder::testing
