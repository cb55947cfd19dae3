#!/usr/bin/env bash
# Configures (once) and builds Solder into build/ with the venv's CMake and ninja.
#   scripts/build.sh             the normal build
#   scripts/build.sh --sanitize [TARGET...]
#                                Solder's code with address and undefined-behaviour sanitizers, into
#                                build-sanitize/ (the test command's sanitizer step builds solder_tests)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
halide_root="$(.venv/bin/python -c 'import halide; print(halide.install_dir())')"
dir=build extra=()
if [ "${1:-}" = "--sanitize" ]; then
  # (-O1: the sanitizers' usual level; it compiles in about half the time of -O3.)
  dir=build-sanitize extra=(-DSOLDER_SANITIZE=address,undefined "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG")
  # Generators run while building; Halide's own allocations outlive them on purpose.
  export ASAN_OPTIONS=detect_leaks=0
fi
if [ ! -f "$dir/build.ninja" ]; then
  .venv/bin/cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "${extra[@]}" \
    -DCMAKE_MAKE_PROGRAM="$root/.venv/bin/ninja" -DHalide_DIR="$halide_root/lib64/cmake/Halide" >/dev/null
fi
# (The build's own status, not grep's: with pipefail a failed build must not read as success.)
set +e
targets=()
[ "$dir" = build-sanitize ] && [ $# -gt 1 ] && targets=(--target "${@:2}")
.venv/bin/cmake --build "$dir" "${targets[@]}" -- -j"$(nproc)" | grep -vE '^\[[0-9]+/[0-9]+\] (Building|Linking)'
status=${PIPESTATUS[0]}
set -e
exit "$status"
