// A small command-line parser shared by Solder's tools: --flag, --key value, positionals.
#pragma once
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/number_arg.h"

namespace solder {

struct Args {
    std::vector<std::string> positional;
    std::map<std::string, std::string> options;  // --key value
    std::set<std::string> flags;                 // --flag

    // `valued` lists the options that take a value; any other --word is a flag from `known_flags`.
    // --help and -h are always flags ("help"): every tool answers them with its usage.
    static Args parse(int argc, char **argv, int first, const std::set<std::string> &valued,
                      const std::set<std::string> &known_flags);
    std::string get(const std::string &k, const std::string &def = "") const {
        auto it = options.find(k);
        return it == options.end() ? def : it->second;
    }
    bool has(const std::string &f) const { return flags.count(f) > 0; }
    // Option `k` as a whole number in [lo, hi] (`def` when absent); a bad value is an error
    // naming the option (core/number_arg.h).
    int64_t integer(const std::string &k, int64_t def, int64_t lo, int64_t hi) const {
        auto it = options.find(k);
        return it == options.end() ? def : parse_integer("--" + k, it->second, lo, hi);
    }
};

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

}  // namespace solder
