// `solder knobs`: the planner's knobs (autosched/model/options.h) with their kinds and defaults: the
// words --disable/--enable and SOLDER_DISABLE/SOLDER_ENABLE take, and the plugin's parameters.
#include <cstdio>

#include "autosched/model/options.h"
#include "cli/args.h"
#include "cli/commands.h"

namespace solder {

int cmd_knobs(int argc, char **argv) {
    Args::parse(argc, argv, 2, {}, {});
    std::printf("%-24s %-8s %-8s %s\n", "knob", "kind", "default", "what it does");
    for (auto &k : autosched::planner_knobs())
        std::printf("%-24s %-8s %-8s %s\n", k.name.c_str(), k.kind.c_str(), k.default_text.empty() ? "-" : k.default_text.c_str(),
                    k.help.c_str());
    std::printf("\nflags: --disable/--enable WORD (or SOLDER_DISABLE/SOLDER_ENABLE=a,b) turn them off/on;\n"
                "every knob: autoscheduler.KNOB=VALUE for the plugin; keep_unfused also as SOLDER_KEEP_UNFUSED=f,g.\n"
                "SOLDER_DISABLE also takes the runtime's words fallback and fast_math.\n");
    return 0;
}

}  // namespace solder
