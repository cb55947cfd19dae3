#!/usr/bin/env bash
# README command 2: set up, build, and run every test (GoogleTest through ctest).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
cd "$root/build"
exec "$root/.venv/bin/ctest" --output-on-failure -j"$(nproc)" "$@"
