#!/usr/bin/env bash
# The plan-time table of bench/RESULTS.md: each pipeline and scheduler in a process of its own,
# stopped after LIMIT seconds (default 120), so that a scheduler that runs away costs one row.
#   bench/plan_time/run_all.sh [LIMIT]
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
limit="${1:-120}"
bin="$root/build/bin/solder-plan-time"
printf "%-12s %6s %-14s %10s %10s  %s\n" pipeline funcs scheduler seconds "peak MB" result
for p in "--sizes 100 --levels 0" "--sizes 300 --levels 0" "--sizes 1000 --levels 0" "--sizes 2000 --levels 0" \
         "--sizes , --levels 10"; do
  for s in solder li2018 mullapudi2016 anderson2021; do
    row=$(timeout "$limit" "$bin" $p --schedulers "$s" 2>/dev/null | tail -n +2)
    if [ -z "$row" ]; then
      printf "%-12s %6s %-14s %10s %10s  %s\n" "$(echo "$p" | tr -d ' -')" "-" "$s" ">$limit" "-" "stopped"
    else
      echo "$row" | cut -c1-120
    fi
  done
done
