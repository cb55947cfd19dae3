// `solder knobs`: Solder's knobs (autosched/model/options.h) with their kinds and defaults, the one
// list of words: what --disable/--enable and SOLDER_DISABLE/SOLDER_ENABLE take (the flags), and the
// plugin's parameters (every knob but the runtime's fallback and fast_math).
#include <cstdio>

#include "autosched/model/options.h"
#include "cli/args.h"
#include "cli/commands.h"

namespace solder {

int cmd_knobs(int argc, char **argv) {
    Args::parse(argc, argv, 2, {}, {});
    std::printf("%-24s %-8s %-8s %s\n", "knob", "kind", "default", "what it does");
    for (auto &k : solder_knobs())
        std::printf("%-24s %-8s %-8s %s\n", k.name.c_str(), k.kind.c_str(),
                    k.default_text.empty() ? "-" : k.default_text.c_str(), k.help.c_str());
    std::printf("\nflags: --disable/--enable WORD (or SOLDER_DISABLE/SOLDER_ENABLE=a,b) turn them off/on;\n"
                "every knob but fallback and fast_math: autoscheduler.KNOB=VALUE for the plugin;\n"
                "keep_unfused also as SOLDER_KEEP_UNFUSED=f,g.\n");
    return 0;
}

}  // namespace solder
