#include "cli/args.h"

namespace solder {

Args Args::parse(int argc, char **argv, int first, const std::set<std::string> &valued,
                 const std::set<std::string> &known_flags) {
    Args a;
    for (int i = first; i < argc; i++) {
        std::string s = argv[i];
        if (s == "--help" || s == "-h") {
            a.flags.insert("help");
        } else if (s.rfind("--", 0) == 0) {
            std::string k = s.substr(2), v;
            size_t eq = k.find('=');
            bool has_inline = eq != std::string::npos;
            if (has_inline) v = k.substr(eq + 1), k = k.substr(0, eq);
            if (valued.count(k)) {
                if (!has_inline) {
                    if (i + 1 >= argc) throw UsageError("option --" + k + " needs a value");
                    v = argv[++i];
                }
                a.options[k] = v;
            } else if (known_flags.count(k) && !has_inline) {
                a.flags.insert(k);
            } else {
                throw UsageError("unknown option --" + k);
            }
        } else {
            a.positional.push_back(s);
        }
    }
    return a;
}

}  // namespace solder
