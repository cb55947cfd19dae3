#!/usr/bin/env bash
# README command 1: set up, build, and run Solder's main job (every app, every schedule, one table).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
exec "$root/build/bin/solder" main "$@"
