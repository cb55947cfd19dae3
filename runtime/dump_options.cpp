#include "runtime/dump_options.h"

#include <cstdlib>
#include <stdexcept>

namespace solder {

const std::vector<DumpWord> &dump_words() {
    static const std::vector<DumpWord> w = {
        {"plan", "Solder's kernels with their Funcs, placements and bytes", true},
        {"explain", "every fusion the planner did not make, with its reason", true},
        {"schedule", "the applied schedule as source", true},
        {"loops", "Halide's loop nest of the scheduled pipeline", true},
        {"kernels", "the generated device kernels (OpenCL C or PTX), one file each", true},
        {"graph", "the pipeline as a Graphviz picture (.dot, and .svg if `dot` exists)", true},
        {"launch", "grid, block and shared memory of every kernel launch", false},
        {"bandwidth", "device time, bytes and effective bandwidth of every kernel", false},
    };
    return w;
}

std::string dump_words_joined() {
    std::string s;
    for (auto &w : dump_words()) s += (s.empty() ? "" : ", ") + std::string(w.word);
    return s;
}

std::set<std::string> parse_dump_words(const std::string &list, const std::string &source) {
    std::set<std::string> out;
    size_t start = 0;
    while (start <= list.size()) {
        size_t end = list.find(',', start);
        if (end == std::string::npos) end = list.size();
        std::string w = list.substr(start, end - start);
        while (!w.empty() && w.front() == ' ') w.erase(w.begin());
        while (!w.empty() && w.back() == ' ') w.pop_back();
        if (!w.empty()) {
            bool known = false;
            for (auto &d : dump_words()) known |= w == d.word;
            if (!known)
                throw std::invalid_argument("unknown dump '" + w + "' in " + source +
                                            " (valid dumps: " + dump_words_joined() + ")");
            out.insert(w);
        }
        start = end + 1;
    }
    return out;
}

DumpOptions dump_options_from_env_and_flag(const std::string &flag_list) {
    DumpOptions o;
    if (const char *env = std::getenv("SOLDER_DUMP")) o.words = parse_dump_words(env, "SOLDER_DUMP");
    for (auto &w : parse_dump_words(flag_list, "--dump")) o.words.insert(w);
    const char *dir = std::getenv("SOLDER_DUMP_DIR");
    o.root = dir && *dir ? dir : "solder-out/dump";
    return o;
}

std::string dump_stem(const std::string &app, const std::string &schedule, const std::string &target,
                      const std::string &size) {
    return app + "__" + schedule + "__" + target + "__" + size;
}

}  // namespace solder
