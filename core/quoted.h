// A string as a double-quoted literal, valid both in JSON and in C/C++ source: quotes and
// backslashes escaped, newlines as \n, other control characters as spaces. Halide-free.
#pragma once
#include <string>

namespace solder {

inline std::string quote_literal(const std::string &s) {
    std::string o = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\')
            o += '\\', o += c;
        else if (c == '\n')
            o += "\\n";
        else if (static_cast<unsigned char>(c) < 0x20)
            o += ' ';
        else
            o += c;
    }
    return o + "\"";
}

}  // namespace solder
