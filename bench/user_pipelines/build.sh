#!/usr/bin/env bash
# Builds, here (no GPU needed), the user-pipeline bench: bench/user_pipelines/pipelines.cpp's
# pipelines scheduled by each auto-scheduler's plugin, compiled for CUDA, and a runner holding them
# all with a host reference, into bench/out/user_pipelines/runner: the file to copy to the GPU
# machine (`runner [PIPELINE,...]` there). Needs the main build (Solder's plugin) and the venv.
#   bench/user_pipelines/build.sh [--schedulers a,b] [--pipelines p,q] [--knob KEY=VALUE TAG]
# --knob adds Solder's libraries built with that plugin parameter, named TAG (`--knob
# register_tiles=0 solderbefore`: the plan before a change, side by side with the default).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
schedulers="solder,anderson2021,li2018" pipelines="" knob="" tag=""
while [ $# -gt 0 ]; do
  case "$1" in
    --schedulers) schedulers="$2"; shift 2 ;;
    --pipelines) pipelines="$2"; shift 2 ;;
    --knob) knob="$2"; tag="$3"; shift 3 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
halide="$(.venv/bin/python -c 'import halide, os; print(os.path.dirname(halide.__file__))')"
work="bench/work/user_pipelines" out="bench/out/user_pipelines"
rm -rf "$work" && mkdir -p "$work" "$out"
g++ -std=c++17 -O1 bench/user_pipelines/pipelines.cpp -I"$halide/include" -L"$halide/lib64" -lHalide \
  -Wl,-rpath,"$halide/lib64" -o "$work/gen"
export SOLDER_PLUGIN="$root/build/lib/libautoschedule_solder.so" HALIDE_PLUGIN_DIR="$halide/lib64"
"$work/gen" "$work" runtime
for s in ref ${schedulers//,/ }; do
  if [ -z "$pipelines" ]; then
    "$work/gen" "$work" "$s" || true
  else
    for p in ${pipelines//,/ }; do "$work/gen" "$work" "$s" "$p" || true; done
  fi
done
# A Solder variant with one plugin parameter changed, beside the default: --knob KEY=VALUE TAG.
if [ -n "$knob" ]; then
  names="${pipelines:-$(grep -o '{"[a-z0-9_]*", [a-z0-9_]*}' bench/user_pipelines/pipelines.cpp | sed 's/{"\([a-z0-9_]*\)".*/\1/')}"
  for p in ${names//,/ }; do
    SOLDER_KNOB="$knob" SOLDER_TAG="$tag" "$work/gen" "$work" solder "$p" || true
  done
fi
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
g++ -std=c++17 -O2 bench/user_pipelines/runner.cpp "$work/libraries.cpp" "$work"/*.a "$work/runtime.o" \
  -I"$halide/include" -ldl -lpthread -o "$out/runner"
echo "built $out/runner ($(ls "$work"/*.a | wc -l) libraries); schedules in $work/*.sched.txt"
