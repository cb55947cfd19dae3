// A whole number from a user's text (a CLI option, a knob), checked where it enters: all of the
// text, within [lo, hi], else one message naming the argument, the value and what is allowed.
// Halide-free, header-only.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

namespace solder {

// A user's text as an error message shows it: control bytes and bytes above 0x7e as \xNN, so
// that a NUL cannot cut the message short and nothing unprintable reaches the terminal.
inline std::string printable(const std::string &s) {
    static const char *hex = "0123456789abcdef";
    std::string o;
    for (char ch : s) {
        const unsigned char c = static_cast<unsigned char>(ch);
        if (c < 0x20 || c > 0x7e)
            o += "\\x", o += hex[c >> 4], o += hex[c & 15];
        else
            o += ch;
    }
    return o;
}

inline int64_t parse_integer(const std::string &what, const std::string &text, int64_t lo, int64_t hi) {
    size_t used = 0;
    long long v = 0;
    bool ok = !text.empty() && text.find_first_of(" \t") == std::string::npos;
    try {
        if (ok) v = std::stoll(text, &used);
    } catch (const std::exception &) {
        ok = false;
    }
    if (!ok || used != text.size() || v < lo || v > hi)
        throw std::invalid_argument(printable(what) + " must be a whole number from " + std::to_string(lo) + " to " +
                                    std::to_string(hi) + ", got '" + printable(text) + "'");
    return v;
}

}  // namespace solder
