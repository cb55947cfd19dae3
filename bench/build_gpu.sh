#!/usr/bin/env bash
# Builds, here (no GPU needed), CUDA pipeline libraries of every app under each schedule, plus the
# Halide-free runner solder-exec, into bench/out/ - the folder a device call carries.
#   bench/build_gpu.sh [--apps a,b] [--schedules s,t] [--small]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
apps="" schedules="unfused,solder,li2018,mullapudi2016,anderson2021" size=""
while [ $# -gt 0 ]; do
  case "$1" in
    --apps) apps="$2"; shift 2 ;;
    --schedules) schedules="$2"; shift 2 ;;
    --small) size="--small"; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[ -n "$apps" ] || apps="$(build/bin/solder list --names | paste -sd, -)"
mkdir -p bench/out/libs
cp build/bin/solder-exec bench/out/
cp ../shared/peers/torch_peers.py bench/out/ 2>/dev/null || true
for app in ${apps//,/ }; do
  for s in ${schedules//,/ }; do
    if out=$(timeout 300 build/bin/solder build "$app" --target cuda --schedule "$s" $size --out bench/out/libs 2>&1); then
      echo "[build] $app / $s: ok"
      stem="bench/out/libs/${app}__${s}__cuda__"
      rm -f "$stem"*.a "$stem"*.h "$stem"*.info.cpp "$stem"*.link.log
    else
      echo "[build] $app / $s: FAILED: $(echo "$out" | head -c 300)"
    fi
  done
done
du -sh bench/out
