// Small text helpers shared by the printed reports and dumps (Halide-free).
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>

namespace solder {

// One printf-formatted number, e.g. fmt("%.2f", x).
inline std::string fmt(const char *f, double v) {
    char b[64];
    std::snprintf(b, sizeof b, f, v);
    return b;
}

// Bytes in decimal units: "12.34 MB", "5.60 KB", "132 B".
inline std::string bytes_str(int64_t b) {
    if (b >= 1000000) return fmt("%.2f MB", double(b) / 1e6);
    if (b >= 1000) return fmt("%.2f KB", double(b) / 1e3);
    return std::to_string(b) + " B";
}

// `s` padded with spaces to at least `w` characters (table columns).
inline std::string pad(std::string s, size_t w) { return s.size() < w ? s + std::string(w - s.size(), ' ') : s; }

}  // namespace solder
