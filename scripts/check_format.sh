#!/usr/bin/env bash
# Checks that Solder's C++ follows .clang-format (what `scripts/check_format.sh --fix` applies).
# Exits 1 listing the files that differ.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
command -v clang-format >/dev/null || { echo "clang-format not found (scripts/setup.sh installs it)"; exit 1; }
mapfile -t files < <(git ls-files '*.cpp' '*.h' 2>/dev/null || find core lang autosched schedules runtime cli apps tests bench examples -name '*.cpp' -o -name '*.h')
if [ "${1:-}" = "--fix" ]; then
  clang-format -i "${files[@]}"
  exit 0
fi
# One clang-format over every file (a process per file took 20 s, nearly all of it start-up); it
# names each file that differs in its "FILE:LINE:COL: error:" lines.
status=0
out="$(clang-format --dry-run --Werror "${files[@]}" 2>&1)" || status=$?
mapfile -t bad < <(printf '%s\n' "$out" | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: .*/\1/p' | sort -u)
if ((status != 0 && ${#bad[@]} == 0)); then
  printf '%s\n' "$out"
  echo "clang-format failed (exit $status) without naming a file that differs"
  exit 1
fi
if ((${#bad[@]})); then
  printf '%s\n' "${bad[@]}"
  echo "${#bad[@]} file(s) differ from .clang-format: scripts/check_format.sh --fix"
  exit 1
fi
echo "format: ${#files[@]} files follow .clang-format"
