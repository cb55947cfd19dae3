#include "runtime/library_check.h"

#include <elf.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace solder {

namespace {

bool read_all(const std::string &path, std::vector<char> &bytes) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return true;
}

uint64_t fnv1a(const std::vector<char> &bytes) {
    uint64_t h = 1469598103934665603ull;
    for (char c : bytes) {
        h ^= uint8_t(c);
        h *= 1099511628211ull;
    }
    return h;
}

std::string sum_text(const std::vector<char> &bytes) {
    char s[64];
    std::snprintf(s, sizeof s, "%zu %016llx", bytes.size(), (unsigned long long)fnv1a(bytes));
    return s;
}

}  // namespace

std::string elf_problem(const std::string &path) {
    std::vector<char> f;
    if (!read_all(path, f)) return "cannot read '" + path + "'";
    const std::string bad = "'" + path + "' is not a whole shared library: ";
    if (f.size() < sizeof(Elf64_Ehdr) || std::memcmp(f.data(), ELFMAG, SELFMAG) != 0)
        return bad + "no ELF header (" + std::to_string(f.size()) + " bytes)";
    Elf64_Ehdr h;
    std::memcpy(&h, f.data(), sizeof h);
    if (h.e_ident[EI_CLASS] != ELFCLASS64) return bad + "not a 64-bit ELF file";
    const uint64_t size = f.size();
    auto inside = [&](uint64_t off, uint64_t len) { return off <= size && len <= size - off; };
    if (!inside(h.e_phoff, uint64_t(h.e_phnum) * h.e_phentsize) || h.e_phentsize < sizeof(Elf64_Phdr))
        return bad + "its program headers lie past its end (" + std::to_string(size) + " bytes): truncated?";
    for (int i = 0; i < h.e_phnum; i++) {
        Elf64_Phdr p;
        std::memcpy(&p, f.data() + h.e_phoff + uint64_t(i) * h.e_phentsize, sizeof p);
        if (p.p_type == PT_LOAD && !inside(p.p_offset, p.p_filesz))
            return bad + "a loadable segment ends at byte " + std::to_string(p.p_offset + p.p_filesz) + " of " +
                   std::to_string(size) + ": truncated";
    }
    if (h.e_shnum > 0 && !inside(h.e_shoff, uint64_t(h.e_shnum) * h.e_shentsize))
        return bad + "its section headers lie past its end (" + std::to_string(size) + " bytes): truncated";
    return "";
}

std::string write_checksum(const std::string &path) {
    std::vector<char> f;
    if (!read_all(path, f)) return "cannot read '" + path + "' to checksum it";
    const std::string tmp = path + ".sum.tmp" + std::to_string(getpid());
    {
        std::ofstream out(tmp);
        out << sum_text(f) << "\n";
        if (!out) return "cannot write '" + tmp + "'";
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path + ".sum", ec);
    return ec ? "cannot rename '" + tmp + "': " + ec.message() : "";
}

std::string checksum_problem(const std::string &path) {
    std::ifstream s(path + ".sum");
    std::string want;
    if (!s || !std::getline(s, want)) return "no checksum beside '" + path + "'";
    std::vector<char> f;
    if (!read_all(path, f)) return "cannot read '" + path + "'";
    std::string have = sum_text(f);
    return have == want ? "" : "'" + path + "' does not match its checksum (" + have + ", recorded " + want + ")";
}

}  // namespace solder
