// Helpers for tests that run the `solder` CLI as a child process (so an abort or a crash is seen
// as such, not taken for the test's own) and that need a fresh folder of their own.
#pragma once
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace solder::testing {

// A new empty folder under the temp dir, unique to this process and call.
inline std::string fresh_temp_dir(const std::string &what) {
    static std::atomic<int> n{0};
    auto dir = std::filesystem::temp_directory_path() /
               ("solder-test-" + what + "-" + std::to_string(getpid()) + "-" + std::to_string(n++));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir.string();
}

struct CliResult {
    int exit_code = -1;  // when it exited
    int signal = 0;      // when a signal ended it (abort, segfault)
    std::string out, err;
};

// Whether `s` holds `part` (the test files that check messages share it: their batches compile as
// one unity file).
inline bool contains(const std::string &s, const std::string &part) { return s.find(part) != std::string::npos; }

// How many times `what` stands in `text`, not overlapping (a plan's kernels of one template, a
// dump's kernel entries).
inline size_t count_of(const std::string &text, const std::string &what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) n++;
    return n;
}

inline std::string read_file(const std::string &path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Runs the executable `tool` with `args` and `env` (NAME=value words, may be empty) added to the
// environment.
inline CliResult run_tool(const std::string &tool, const std::string &args, const std::string &env = "") {
    std::string dir = fresh_temp_dir("cli");
    // exec: the shell becomes the tool, so a signal that ends it is reported as a signal.
    std::string cmd = "exec env " + env + " '" + tool + "' " + args + " >'" + dir + "/out' 2>'" + dir + "/err'";
    int st = std::system(cmd.c_str());
    CliResult r;
    if (WIFEXITED(st)) r.exit_code = WEXITSTATUS(st);
    if (WIFSIGNALED(st)) r.signal = WTERMSIG(st);
    r.out = read_file(dir + "/out");
    r.err = read_file(dir + "/err");
    std::filesystem::remove_all(dir);
    return r;
}

// Runs `solder ARGS` with `env` added to the environment.
inline CliResult run_solder_cli(const std::string &args, const std::string &env = "") {
#ifndef SOLDER_CLI
#error "SOLDER_CLI must name the solder executable (tests/CMakeLists.txt)"
#endif
    return run_tool(SOLDER_CLI, args, env);
}

}  // namespace solder::testing
