#!/usr/bin/env bash
# Builds, here (no GPU needed), the user-pipeline bench: the pipelines of
# bench/user_pipelines/pipelines_*.cpp scheduled by each auto-scheduler's plugin, compiled for
# CUDA, and a runner holding them all with a host reference, into
# bench/out/user_pipelines/runner: the file to copy to the GPU machine (`runner [PIPELINE,...]
# [SCHEDULER,...]` there). Needs the main build (Solder's plugin) and the venv.
#   bench/user_pipelines/build.sh [--schedulers a,b] [--pipelines p,q] [--knob KEY=VALUE TAG]
# With --pipelines, the libraries built before for other pipelines and schedulers stay in the
# runner. --knob adds Solder's libraries built with that plugin parameter, named TAG (`--knob
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
# Without --pipelines everything is rebuilt; with it, only those pipelines' libraries under the
# schedulers named (and their references) are replaced, and the runner holds them beside the
# libraries built before.
if [ -z "$pipelines" ]; then
  rm -rf "$work"
else
  for p in ${pipelines//,/ }; do
    for s in ref ${schedulers//,/ } ${tag}; do rm -f "$work/${p}_${s}."*; done
  done
fi
mkdir -p "$work" "$out"
g++ -std=c++17 -O1 -I. bench/user_pipelines/gen.cpp bench/user_pipelines/pipelines_*.cpp -I"$halide/include" -L"$halide/lib64" -lHalide \
  -Wl,-rpath,"$halide/lib64" -o "$work/gen"
export SOLDER_PLUGIN="$root/build/lib/libautoschedule_solder.so" HALIDE_PLUGIN_DIR="$halide/lib64"
"$work/gen" "$work" runtime
# Each pipeline in a process of its own: a scheduler that aborts on one loses only that library.
names="${pipelines:-$(grep -ho 'r.emplace("[a-z0-9_]*"' bench/user_pipelines/pipelines_*.cpp | sed 's/.*("//; s/"//')}"
for s in ref ${schedulers//,/ }; do
  for p in ${names//,/ }; do "$work/gen" "$work" "$s" "$p" || true; done
done
# A Solder variant with one plugin parameter changed, beside the default: --knob KEY=VALUE TAG.
if [ -n "$knob" ]; then
  for p in ${names//,/ }; do
    SOLDER_KNOB="$knob" SOLDER_TAG="$tag" "$work/gen" "$work" solder "$p" || true
  done
fi
bash bench/user_pipelines/link_runner.sh "$work" "$out/runner"
echo "built $out/runner ($(ls "$work"/*.a | wc -l) libraries); schedules in $work/*.sched.txt"
