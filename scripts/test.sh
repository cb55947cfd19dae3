#!/usr/bin/env bash
# README command 2: set up, build, and run every test (GoogleTest through ctest); then the fast tests
# and the user-pipeline and compile-cache suites again in a build with address and
# undefined-behaviour sanitizers.
#   scripts/test.sh               everything (CI)
#   scripts/test.sh -L fast ...   only what the ctest arguments select, no sanitizer step
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
cd "$root/build"
"$root/.venv/bin/ctest" --output-on-failure -j"$(nproc)" "$@"
[ $# -eq 0 ] || exit 0
echo "[test] the fast tests under address and undefined-behaviour sanitizers (build-sanitize/)"
"$root/scripts/build.sh" --sanitize
cd "$root/build-sanitize"
# use_sigaltstack=0: a thread that compiles through Halide gets LLVM's own alternate signal stack,
# and ASan's teardown of that thread then fails to unmap it ("unable to unmap", a CHECK in ASan
# itself, in CompileCache's threads).
export ASAN_OPTIONS=detect_leaks=0:use_sigaltstack=0
# The fast set, then the slow suites that hold the odd-input cases: users' pipelines at every size,
# damaged cached libraries.
"$root/.venv/bin/ctest" --output-on-failure -j"$(nproc)" -L fast
exec "$root/.venv/bin/ctest" --output-on-failure -j"$(nproc)" -R '^(UserPipelines|CompileCache)\.'

