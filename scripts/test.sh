#!/usr/bin/env bash
# README command 2: set up, build, and run every test (GoogleTest through ctest).
#   scripts/test.sh               everything (CI)
#   scripts/test.sh -L fast ...   only what the ctest arguments select
#   scripts/test.sh --sanitize    the suites of odd inputs (users' pipelines, damaged caches, fuzzed
#                                 inputs, errors) and of the planner's logic, in a build of their test
#                                 binary with address and undefined-behaviour sanitizers (build-sanitize/;
#                                 about 12 minutes on 2 cores, beside CI's 20-minute budget, so not in it)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
if [ "${1:-}" != "--sanitize" ]; then
  "$root/scripts/build.sh"
  cd "$root/build"
  exec "$root/.venv/bin/ctest" --output-on-failure -j"$(nproc)" "$@"
fi
echo "[test] the odd-input and planner suites under address and undefined-behaviour sanitizers (build-sanitize/)"
"$root/scripts/build.sh" --sanitize solder_tests
cd "$root/build-sanitize"
# use_sigaltstack=0: a thread that compiles through Halide gets LLVM's own alternate signal stack,
# and ASan's teardown of that thread then fails to unmap it ("unable to unmap", a CHECK in ASan
# itself, in CompileCache's threads).
export ASAN_OPTIONS=detect_leaks=0:use_sigaltstack=0
# Every test of that binary (CMakeLists.txt: the odd-input and planner suites), the OpenCL ones
# included (not the other test binaries, which this step does not build).
exec "$root/.venv/bin/ctest" --output-on-failure -j"$(nproc)" -E '_NOT_BUILT$|^(Layering|Format|Package)\.'
