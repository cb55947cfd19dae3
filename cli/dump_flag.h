// SOLDER_DUMP and `--dump` for Solder's commands (runtime/dump_options.h has the words).
#pragma once
#include <string>

#include "cli/args.h"
#include "runtime/dump_options.h"

namespace solder {

// The union of SOLDER_DUMP and --dump. An unknown word is a UsageError (exit 2) listing the valid ones.
DumpOptions dumps_from_cli(const Args &a);

// Tells (on stderr) which of the asked-for dumps this command does not make and where they are
// made instead: the compile dumps need Halide, the run dumps a run.
void note_dumps_made_elsewhere(const DumpOptions &d, bool compiles, bool runs, const std::string &program);

}  // namespace solder
