#!/usr/bin/env bash
# Solder as another project uses it: install the build into a fresh temporary prefix, then
#  1. configure, build and run examples/local_contrast against that prefix alone (find_package(Solder),
#     add_halide_library(... AUTOSCHEDULER Solder PLUGINS Solder::autoschedule_solder), Solder::lang);
#  2. run tests/python/plugin_test.py with the halide wheel's Python and the installed plugin;
#  3. run an app with the installed CLI.
#   tests/package_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build="$1" src="$2"
venv="$src/.venv/bin"
prefix="$(mktemp -d "${TMPDIR:-/tmp}/solder-package.XXXXXX")"
trap 'rm -rf "$prefix"' EXIT
"$venv/cmake" --install "$build" --prefix "$prefix" > "$prefix/install.log"
"$venv/cmake" -S "$src/examples/local_contrast" -B "$prefix/example" -G Ninja \
  -DCMAKE_MAKE_PROGRAM="$venv/ninja" -DCMAKE_PREFIX_PATH="$prefix" > "$prefix/configure.log"
"$venv/cmake" --build "$prefix/example" > "$prefix/build.log" || { cat "$prefix/build.log"; exit 1; }
"$prefix/example/run_local_contrast"
"$venv/python" "$src/tests/python/plugin_test.py" "$prefix/lib/libautoschedule_solder.so"
# 3. the installed CLI compiles, runs and checks an app with its own launch hooks.
SOLDER_OUT_DIR="$prefix/out" "$prefix/bin/solder" run add_relu --small --iters 1 | tee "$prefix/run.log"
grep -q '^PASS' "$prefix/run.log"
