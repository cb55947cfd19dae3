#include <cstdio>

#include "apps/app_spec.h"
#include "cli/args.h"
#include "cli/commands.h"

namespace solder {

int cmd_list(int argc, char **argv) {
    Args a = Args::parse(argc, argv, 2, {}, {"small", "names"});
    AppSize size = a.has("small") ? AppSize::Small : AppSize::Full;
    if (a.has("names")) {
        for (auto &app : all_app_specs()) std::printf("%s\n", app.name.c_str());
        return 0;
    }
    for (auto &app : all_app_specs())
        std::printf("%-18s %-6s %s\n%18s        %s\n", app.name.c_str(), app.family.c_str(), app.description.c_str(),
                    "", app.shapes_str(size).c_str());
    return 0;
}

}  // namespace solder
