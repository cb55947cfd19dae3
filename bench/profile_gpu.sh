#!/usr/bin/env bash
# Runs on the GPU machine with bench/out copied there from the build machine: Nsight Compute over one
# unchecked call of each given library (default: every Solder library), every launch profiled, with
# the sections that say why a memory-bound kernel is slow (achieved DRAM bandwidth, occupancy and
# what limits it, registers, local-memory spills, warp stall reasons). Full reports go to
# $OUT/ncu/; a one-line-per-kernel summary to stdout and $OUT/ncu_summary.txt.
#   bench/profile_gpu.sh [lib.so ...]
set -uo pipefail
out="${OUT:-/tmp/solder-profile}"
mkdir -p "$out/ncu"
libs=("$@")
[ ${#libs[@]} -gt 0 ] || libs=(bench/out/libs/*__solder__cuda__*.so)
for lib in "${libs[@]}"; do
  name="$(basename "$lib" .so)"
  # --clock-control none: leave the GPU's clocks as they are (ncu locks them to base clocks otherwise).
  ncu --clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats \
      --section WarpStateStats --section MemoryWorkloadAnalysis --section SourceCounters \
      bench/out/solder-exec "$lib" --iters 1 --warmup 0 --no-check > "$out/ncu/$name.txt" 2>&1
  python3 bench/ncu_summary.py "$name" "$out/ncu/$name.txt"
done | tee "$out/ncu_summary.txt"
