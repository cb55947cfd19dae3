#!/usr/bin/env bash
# Writes every bundled app's plan (`solder plan --json` and `--source`) for the host, OpenCL and
# CUDA targets, at the full and the reduced size, one file each, into DIR. Two snapshots taken
# before and after a change that should not alter plans compare with `diff -r`.
#   scripts/plan_snapshot.sh DIR [path/to/solder]   (default: build/bin/solder)
set -euo pipefail
out="${1:?usage: scripts/plan_snapshot.sh DIR [path/to/solder]}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
solder="${2:-$root/build/bin/solder}"
mkdir -p "$out"
for app in $("$solder" list --names); do
  for target in host opencl cuda; do
    for size in full small; do
      flags=(--target "$target")
      [ "$size" = small ] && flags+=(--small)
      base="$out/$app.$target.$size"
      SOLDER_QUIET=1 "$solder" plan "$app" "${flags[@]}" --json >"$base.json" 2>&1 || echo "exit $?" >>"$base.json"
      SOLDER_QUIET=1 "$solder" plan "$app" "${flags[@]}" --source >"$base.source" 2>&1 || echo "exit $?" >>"$base.source"
    done
  done
done
echo "$(ls "$out" | wc -l) plan files in $out"
