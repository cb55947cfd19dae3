// Checks on a pipeline library file before it is mapped: a truncated or damaged .so makes dlopen
// (or the first call into it) die by a signal, so Solder never maps one it has not checked.
//  - elf_problem: the file is a whole 64-bit ELF file (its header, program segments and section
//    headers all lie inside it). Catches truncation of any library, also one Solder did not build.
//  - A checksum file beside each library the compile cache writes (LIB.so.sum: size and FNV-1a
//    64 of the contents); checksum_problem compares it, so a library damaged in place is compiled
//    over rather than reused.
// Halide-free.
#pragma once
#include <string>

namespace solder {

// "" when `path` is a whole ELF64 file, else one sentence naming the file and the problem.
std::string elf_problem(const std::string &path);
// Writes PATH.sum for `path` (atomically: a temporary file renamed). Returns "" or the problem.
std::string write_checksum(const std::string &path);
// "" when PATH.sum exists and matches the file's size and contents, else the problem.
std::string checksum_problem(const std::string &path);

}  // namespace solder
