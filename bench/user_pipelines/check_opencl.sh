#!/usr/bin/env bash
# Checks, here (no GPU needed), Solder's OpenCL plans of the user pipelines: each pipeline planned
# by Solder's plugin for OpenCL at its estimates, compiled ahead of time, and run once on PoCL at a
# smaller size (every buffer extent above 16 divided by --scale, 8 by default; scalars at their
# estimates) against the host reference (every Func at root). Prints one line per pipeline: ok or
# MISMATCH with the largest difference relative to the reference's magnitude, or why it failed.
# Needs the main build and the venv.
#   bench/user_pipelines/check_opencl.sh [--pipelines p,q] [--scale N]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
pipelines="" scale=8
while [ $# -gt 0 ]; do
  case "$1" in
    --pipelines) pipelines="$2"; shift 2 ;;
    --scale) scale="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
halide="$(.venv/bin/python -c 'import halide, os; print(os.path.dirname(halide.__file__))')"
work="bench/work/user_pipelines_cl"
rm -rf "$work"
mkdir -p "$work"
g++ -std=c++17 -O1 -I. bench/user_pipelines/gen.cpp bench/user_pipelines/pipelines_*.cpp -I"$halide/include" \
  -L"$halide/lib64" -lHalide -Wl,-rpath,"$halide/lib64" -o "$work/gen"
export SOLDER_PLUGIN="$root/build/lib/libautoschedule_solder.so"
"$work/gen" "$work" runtime_cl
names="${pipelines:-$(grep -ho 'r.emplace("[a-z0-9_]*"' bench/user_pipelines/pipelines_*.cpp | sed 's/.*("//; s/"//')}"
for p in ${names//,/ }; do
  for s in ref soldercl; do "$work/gen" "$work" "$s" "$p" | grep -v '^built' || true; done
done
bash bench/user_pipelines/link_runner.sh "$work" "$work/runner"
"$work/runner" "${pipelines:-all}" soldercl --check --scale "$scale"
