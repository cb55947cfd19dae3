#!/usr/bin/env bash
# Builds the random narrow-type pipelines' GPU check (bench/random_on_gpu/): for each seed, Solder's
# CUDA library and the host reference (gen.cpp), and a runner that compares them (runner.cpp), into
# bench/out/random_on_gpu/runner. Needs build/ (scripts/build.sh). Run the runner on a machine with
# an NVIDIA GPU: bench/out/random_on_gpu/runner [SEED...].
#   bench/random_on_gpu/build.sh [--seeds FIRST:COUNT] (default 1:40)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
first=1 count=40
while [ $# -gt 0 ]; do
  case "$1" in
    --seeds) first="${2%%:*}"; count="${2##*:}"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
halide="$(.venv/bin/python -c 'import halide, os; print(os.path.dirname(halide.__file__))')"
work="bench/work/random_on_gpu" out="bench/out/random_on_gpu"
rm -rf "$work" && mkdir -p "$work" "$out"
g++ -std=c++17 -O1 -I. bench/random_on_gpu/gen.cpp -I"$halide/include" \
  -Wl,--start-group build/libsolder_*.a build/tests/libsolder_test_support.a -Wl,--end-group -lgtest \
  -L"$halide/lib64" -lHalide -Wl,-rpath,"$halide/lib64" -lpthread -ldl -o "$work/gen"
"$work/gen" "$work" runtime
"$work/gen" "$work" $(seq "$first" $((first + count - 1))) || true
{
  echo '#include <vector>'
  echo '#include "HalideRuntime.h"'
  echo 'struct Library { unsigned long long seed; int (*ours)(void **); int (*ref)(void **); const halide_filter_metadata_t *(*metadata)(); };'
  for a in "$work"/typed_*_solder.a; do
    s="$(basename "$a" _solder.a)"
    [ -f "$work/${s}_ref.a" ] || continue
    echo "extern \"C\" int ${s}_solder_argv(void **); extern \"C\" int ${s}_ref_argv(void **);"
    echo "extern \"C\" const halide_filter_metadata_t *${s}_solder_metadata();"
  done
  echo 'extern const std::vector<Library> kLibraries = {'
  for a in "$work"/typed_*_solder.a; do
    s="$(basename "$a" _solder.a)"
    [ -f "$work/${s}_ref.a" ] || continue
    echo "    {${s#typed_}ULL, ${s}_solder_argv, ${s}_ref_argv, ${s}_solder_metadata},"
  done
  echo '};'
} >"$work/libraries.cpp"
g++ -std=c++17 -O2 bench/random_on_gpu/runner.cpp "$work/libraries.cpp" "$work"/typed_*.a "$work/runtime.o" \
  -I"$halide/include" -ldl -lpthread -o "$out/runner"
echo "built $out/runner ($(ls "$work"/typed_*_solder.a | wc -l) pipelines)"
