#!/usr/bin/env bash
# Links the user-pipeline runner (runner.cpp) with every library in WORK (WORK/*.a, each a
# pipeline under one scheduler, named PIPELINE_SCHEDULER) and WORK/runtime.o, into OUT. build.sh
# and check_opencl.sh call it; after adding libraries to WORK by hand (`gen WORK solder P` with
# $SOLDER_TAG), it relinks the runner.
#   bench/user_pipelines/link_runner.sh WORK OUT
set -euo pipefail
work="${1:?usage: link_runner.sh WORK OUT}" out="${2:?usage: link_runner.sh WORK OUT}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
halide="$("$root/.venv/bin/python" -c 'import halide, os; print(os.path.dirname(halide.__file__))')"
{
  echo '#include <vector>'
  echo '#include "HalideRuntime.h"'
  echo 'struct Library { const char *pipeline, *scheduler; int (*argv_fn)(void **); const halide_filter_metadata_t *(*metadata)(); };'
  for a in "$work"/*.a; do
    s="$(basename "$a" .a)"
    echo "extern \"C\" int ${s}_argv(void **); extern \"C\" const halide_filter_metadata_t *${s}_metadata();"
  done
  echo 'extern const std::vector<Library> kLibraries = {'
  for a in "$work"/*.a; do
    s="$(basename "$a" .a)"
    echo "    {\"${s%_*}\", \"${s##*_}\", ${s}_argv, ${s}_metadata},"
  done
  echo '};'
} >"$work/libraries.cpp"
g++ -std=c++17 -O2 "$root/bench/user_pipelines/runner.cpp" "$work/libraries.cpp" "$work"/*.a "$work/runtime.o" \
  -I"$root" -I"$halide/include" -ldl -lpthread -o "$out"
