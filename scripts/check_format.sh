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
bad=()
for f in "${files[@]}"; do
  clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if ((${#bad[@]})); then
  printf '%s\n' "${bad[@]}"
  echo "${#bad[@]} file(s) differ from .clang-format: scripts/check_format.sh --fix"
  exit 1
fi
echo "format: ${#files[@]} files follow .clang-format"
