#!/usr/bin/env bash
# Configures (once) and builds Solder into build/ with the venv's CMake and ninja.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
halide_root="$(.venv/bin/python -c 'import halide; print(halide.install_dir())')"
if [ ! -f build/build.ninja ]; then
  .venv/bin/cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_MAKE_PROGRAM="$root/.venv/bin/ninja" -DHalide_DIR="$halide_root/lib64/cmake/Halide" >/dev/null
fi
.venv/bin/cmake --build build -- -j"$(nproc)" | grep -vE '^\[[0-9]+/[0-9]+\] (Building|Linking)' || true
test "${PIPESTATUS[0]}" = 0
