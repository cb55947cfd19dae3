#include "runtime/device_source_split.h"

#include <cctype>

namespace solder {

namespace {

struct Marker {
    std::string name;
    size_t start;  // where the kernel's text begins (its leading comment, if any)
};

size_t line_start(const std::string &s, size_t pos) {
    size_t nl = pos == 0 ? std::string::npos : s.rfind('\n', pos - 1);
    return nl == std::string::npos ? 0 : nl + 1;
}

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

std::vector<Marker> find_kernels(const std::string &src, DeviceLanguage lang) {
    const std::string key = lang == DeviceLanguage::OpenCL ? "__kernel void " : ".entry ";
    // The comment Halide (OpenCL) or LLVM (PTX) writes just before a kernel, naming it.
    const std::string lead = lang == DeviceLanguage::OpenCL ? "// Address spaces for " : "// .globl\t";
    std::vector<Marker> ms;
    size_t prev_end = 0;
    for (size_t at = src.find(key); at != std::string::npos; at = src.find(key, at + key.size())) {
        size_t n = at + key.size(), e = n;
        while (e < src.size() && is_name_char(src[e])) e++;
        if (e == n || e >= src.size() || src[e] != '(') continue;
        Marker m{src.substr(n, e - n), line_start(src, at)};
        size_t c = src.rfind(lead + m.name, at);
        if (c != std::string::npos && c >= prev_end) m.start = line_start(src, c);
        ms.push_back(m);
        prev_end = e;
    }
    return ms;
}

}  // namespace

std::vector<KernelSource> split_device_source(const std::string &source, DeviceLanguage lang) {
    std::string src = source;
    while (!src.empty() && src.back() == '\0') src.pop_back();  // Halide's buffer ends in a NUL
    std::vector<Marker> ms = find_kernels(src, lang);
    std::vector<KernelSource> out;
    if (ms.empty()) return out;
    std::string preamble = src.substr(0, ms[0].start);
    for (size_t i = 0; i < ms.size(); i++) {
        if (ms[i].name.rfind("_at_least_one_kernel", 0) == 0) continue;
        size_t end = i + 1 < ms.size() ? ms[i + 1].start : src.size();
        out.push_back({ms[i].name, preamble + src.substr(ms[i].start, end - ms[i].start)});
    }
    return out;
}

}  // namespace solder
