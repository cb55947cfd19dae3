#!/usr/bin/env bash
# Builds, here (no GPU needed), CUDA pipeline libraries of every app under each schedule, plus the
# Halide-free runner solder-exec, into bench/out/: the folder to copy to the GPU machine.
#   bench/build_gpu.sh [--apps a,b] [--schedules s,t] [--small] [--all]
# Pairs listed in bench/known_slow_builds.txt (over the 300 s compile limit every time they were
# tried) are skipped with their reason unless --all is given: they took 15 of this script's
# 17 minutes only to fail. torch_peers.py (the PyTorch peers; not part of this repository) is copied
# into bench/out/ from ../shared/peers/ when it is there.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
apps="" schedules="unfused,solder,li2018,mullapudi2016,anderson2021" size="" all=0
while [ $# -gt 0 ]; do
  case "$1" in
    --apps) apps="$2"; shift 2 ;;
    --schedules) schedules="$2"; shift 2 ;;
    --small) size="--small"; shift ;;
    --all) all=1; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[ -n "$apps" ] || apps="$(build/bin/solder list --names | paste -sd, -)"
mkdir -p bench/out/libs
cp build/bin/solder-exec bench/out/
cp ../shared/peers/torch_peers.py bench/out/ 2>/dev/null || true
for app in ${apps//,/ }; do
  for s in ${schedules//,/ }; do
    known="$(grep -E "^$app/$s:" bench/known_slow_builds.txt 2>/dev/null | head -1 | cut -d: -f2- | sed "s/^ //" || true)"
    if [ -n "$known" ] && [ -z "$size" ] && [ "$all" = 0 ]; then
      echo "[build] $app / $s: skipped ($known; --all tries it)"
      continue
    fi
    if out=$(timeout 300 build/bin/solder build "$app" --target cuda --schedule "$s" $size --out bench/out/libs 2>&1); then
      echo "[build] $app / $s: ok"
      # Only the .so travels to the GPU machine; the rest stays in bench/work (relinking is cheap).
      stem="${app}__${s}__cuda__"
      mkdir -p bench/work
      mv bench/out/libs/"$stem"*.a bench/out/libs/"$stem"*.h bench/out/libs/"$stem"*.info.cpp \
         bench/out/libs/"$stem"*.link.log bench/work/ 2>/dev/null || true
    else
      echo "[build] $app / $s: FAILED: $(echo "$out" | head -c 300)"
    fi
  done
done
du -sh bench/out
