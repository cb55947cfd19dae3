// SOLDER_DISABLE / SOLDER_ENABLE / SOLDER_KEEP_UNFUSED and `--disable` / `--enable` for Solder's
// commands: one SolderOptions value (autosched/model/options.h), made once where a command starts
// and passed down with its requests.
#pragma once
#include "autosched/model/options.h"
#include "cli/args.h"

namespace solder {

// The environment's options with the command's --disable and --enable words on top (a command
// without those flags gets the environment's alone). An unknown word is an UnknownNameError (exit
// 2) listing the valid ones, the same message whichever way it came.
inline SolderOptions options_from_cli(const Args &a) {
    SolderOptions o = SolderOptions::from_environment();
    o.disable(a.get("disable"));
    o.enable(a.get("enable"));
    return o;
}

}  // namespace solder
