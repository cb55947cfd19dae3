#include "cli/dump_flag.h"

#include <cstdio>
#include <stdexcept>

namespace solder {

DumpOptions dumps_from_cli(const Args &a) {
    try {
        return dump_options_from_env_and_flag(a.get("dump"));
    } catch (const std::invalid_argument &e) {
        throw UsageError(e.what());
    }
}

void note_dumps_made_elsewhere(const DumpOptions &d, bool compiles, bool runs, const std::string &program) {
    for (auto &w : dump_words()) {
        if (!d.on(w.word) || (w.needs_compiler ? compiles : runs)) continue;
        std::fprintf(stderr, "%s: no '%s' dump here: it is made %s\n", program.c_str(), w.word,
                     w.needs_compiler ? "while compiling (solder run or solder build)"
                                      : "from a run (solder run, or solder-exec on the GPU machine)");
    }
}

}  // namespace solder
