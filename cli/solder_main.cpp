// `solder`: the command-line front end. Subcommands live in cli/cmd_*.cpp.
#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>

#include "Halide.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "core/unknown_name_error.h"

namespace {
const char *kUsage =
    "usage: solder <command> [options]\n"
    "  list [--small] [--names]              the bundled apps with their shapes\n"
    "  run APP [--target host|opencl|cuda] [--schedule NAME (default solder)] [--small] [--iters N] [--seed N]\n"
    "          [--machine] [--disable WORDS] [--enable WORDS] [--dump WORDS]\n"
    "                                        compile, run and check one app against its reference\n"
    "  build APP --target T --schedule NAME [--small] [--out DIR] [--dump WORDS]\n"
    "                                        compile only, to a library solder-exec runs (e.g. on the GPU machine)\n"
    "  main [--target T] [--full] [--apps A,B] [--schedules S,T]\n"
    "                                        every app under every schedule: one table (the main job)\n"
    "  plan APP [--json] [--target T] [--small] [--disable WORDS] [--enable WORDS] [--graph] [--source] [--compare]\n"
    "                                        the Solder planner's kernels, bytes and reasons; --source adds\n"
    "                                        the C++ schedule, --compare scores every schedule for the target\n"
    "  knobs                                 the planner's knobs: --disable/--enable words (flags), the\n"
    "                                        plugin's autoscheduler.KEY=VALUE parameters, their defaults\n"
    "  help, --help                          this text (also after any command)\n"
    "dumps (--dump a,b or SOLDER_DUMP=a,b; files under $SOLDER_DUMP_DIR, default solder-out/dump):\n"
    "  plan, explain, schedule, loops, kernels, graph (while compiling); launch, bandwidth (from a run)\n";
}

int main(int argc, char **argv) {
    if (argc < 2 || !std::strcmp(argv[1], "help") || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
        std::fputs(kUsage, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    std::string cmd = argv[1];
    for (int i = 2; i < argc; i++)
        if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
            std::fputs(kUsage, stdout);
            return 0;
        }
    try {
        if (cmd == "knobs") return solder::cmd_knobs(argc, argv);
        if (cmd == "list") return solder::cmd_list(argc, argv);
        if (cmd == "run") return solder::cmd_run(argc, argv);
        if (cmd == "build") return solder::cmd_build(argc, argv);
        if (cmd == "main") return solder::cmd_main(argc, argv);
        if (cmd == "plan") return solder::cmd_plan(argc, argv);
        std::fprintf(stderr, "solder: unknown command '%s'\n%s", cmd.c_str(), kUsage);
        return 2;
    } catch (const solder::UsageError &e) {
        std::fprintf(stderr, "solder %s: %s\n%s", cmd.c_str(), e.what(), kUsage);
        return 2;
    } catch (const solder::UnknownNameError &e) {
        std::fprintf(stderr, "solder %s: error: %s\n", cmd.c_str(), e.what());
        return 2;
    } catch (const std::invalid_argument &e) {  // a bad value for an option or knob
        std::fprintf(stderr, "solder %s: error: %s\n", cmd.c_str(), e.what());
        return 2;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "solder %s: error: %s\n", cmd.c_str(), e.what());
        return 1;
    } catch (const Halide::Error &e) {
        std::fprintf(stderr, "solder %s: Halide error: %s\n", cmd.c_str(), e.what());
        return 1;
    }
}
