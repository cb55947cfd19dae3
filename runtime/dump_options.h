// Which dumps a run asks for: the words of SOLDER_DUMP=a,b and of the `--dump a,b` flag (their
// union), and where dump files go. Halide-free, so solder-exec on the GPU machine parses the same
// words as `solder run`.
#pragma once
#include <set>
#include <string>
#include <vector>

namespace solder {

struct DumpWord {
    const char *word;
    const char *what;
    bool needs_compiler;  // made while compiling (solder run/build); the others need a run
};
const std::vector<DumpWord> &dump_words();
std::string dump_words_joined();  // "plan, explain, ..."

struct DumpOptions {
    std::set<std::string> words;
    std::string root;  // dump folders go under it: $SOLDER_DUMP_DIR, else solder-out/dump
    bool on(const std::string &word) const { return words.count(word) > 0; }
    bool any() const { return !words.empty(); }
};

// Parses a comma-separated list. An unknown word throws std::invalid_argument naming the word,
// where it came from (`source`, e.g. "SOLDER_DUMP") and every valid word.
std::set<std::string> parse_dump_words(const std::string &list, const std::string &source);
// SOLDER_DUMP plus the flag's list; the folder root from SOLDER_DUMP_DIR.
DumpOptions dump_options_from_env_and_flag(const std::string &flag_list);

// One folder per build, named like the library: app__schedule__target__size.
std::string dump_stem(const std::string &app, const std::string &schedule, const std::string &target,
                      const std::string &size);

}  // namespace solder
