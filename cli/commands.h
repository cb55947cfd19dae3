// The `solder` subcommands, one file each.
#pragma once

namespace solder {

int cmd_list(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_build(int argc, char **argv);
int cmd_main(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_knobs(int argc, char **argv);

}  // namespace solder
