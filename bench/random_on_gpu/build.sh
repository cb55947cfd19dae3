#!/usr/bin/env bash
# Builds the random pipelines' GPU check (bench/random_on_gpu/): for each seed of a family, Solder's
# CUDA library and the host reference (gen.cpp), and a runner that compares them, into
# bench/out/random_on_gpu/FAMILY_runner (runner.cpp for the narrow-type family, tensor_runner.cpp
# for the tensor family). Needs build/ (scripts/build.sh). Run the runner on a machine with an
# NVIDIA GPU: bench/out/random_on_gpu/FAMILY_runner [SEED...].
#   bench/random_on_gpu/build.sh [--family typed|tensor] (default typed) [--seeds LIST] (default 1:40)
# LIST is comma-separated: FIRST:COUNT for COUNT seeds from FIRST, or a single seed (1:60,109,755).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
seeds=1:40 family=typed
while [ $# -gt 0 ]; do
  case "$1" in
    --seeds) seeds="$2"; shift 2 ;;
    --family) family="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
case "$family" in
  typed) runner=runner.cpp extra=() ;;
  tensor) runner=tensor_runner.cpp extra=(tests/support/tensor_extern.cpp) ;;
  *) echo "--family must be typed or tensor" >&2; exit 2 ;;
esac
seed_list=()
IFS=, read -ra parts <<<"$seeds"
for p in "${parts[@]}"; do
  case "$p" in
    *:*) first="${p%%:*}" count="${p##*:}"; seed_list+=($(seq "$first" $((first + count - 1)))) ;;
    *[!0-9]* | '') echo "--seeds: '$p' is neither FIRST:COUNT nor a seed" >&2; exit 2 ;;
    *) seed_list+=("$p") ;;
  esac
done
halide="$(.venv/bin/python -c 'import halide, os; print(os.path.dirname(halide.__file__))')"
work="bench/work/random_on_gpu/$family" out="bench/out/random_on_gpu"
rm -rf "$work" && mkdir -p "$work" "$out"
g++ -std=c++17 -O1 -I. bench/random_on_gpu/gen.cpp -I"$halide/include" \
  -Wl,--start-group build/libsolder_*.a build/tests/libsolder_test_support.a -Wl,--end-group -lgtest \
  -L"$halide/lib64" -lHalide -Wl,-rpath,"$halide/lib64" -lpthread -ldl -o "$work/gen"
"$work/gen" "$work" runtime
"$work/gen" "$work" "$family" "${seed_list[@]}" || true
touch "$work/nhwc.txt"
# The seeds whose two libraries were both built.
libs=()
for a in "$work/${family}"_*_solder.a; do
  s="$(basename "$a" _solder.a)"
  if [ -f "$work/${s}_ref.a" ]; then libs+=("$s"); fi
done
{
  echo '#include "bench/random_on_gpu/runner_support.h"'
  for s in "${libs[@]}"; do
    echo "extern \"C\" int ${s}_solder_argv(void **); extern \"C\" int ${s}_ref_argv(void **);"
    echo "extern \"C\" const halide_filter_metadata_t *${s}_solder_metadata();"
  done
  echo 'extern const std::vector<Library> kLibraries = {'
  for s in "${libs[@]}"; do
    seed="${s#${family}_}"
    nhwc=false
    grep -qx "$seed" "$work/nhwc.txt" && nhwc=true
    tol=""
    [ -f "$work/${s}_tolerances.txt" ] && tol="$(paste -sd, "$work/${s}_tolerances.txt")"
    echo "    {${seed}ULL, ${s}_solder_argv, ${s}_ref_argv, ${s}_solder_metadata, $nhwc, {$tol}},"
  done
  echo '};'
} >"$work/libraries.cpp"
g++ -std=c++17 -O2 -I. "bench/random_on_gpu/$runner" "${extra[@]}" "$work/libraries.cpp" "$work/${family}"_*.a \
  "$work/runtime.o" -I"$halide/include" -ldl -lpthread -o "$out/${family}_runner"
echo "built $out/${family}_runner ($(ls "$work/${family}"_*_solder.a | wc -l) pipelines)"
