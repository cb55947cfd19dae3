#!/usr/bin/env bash
# Installs everything Solder needs on a fresh Debian machine; quick and silent when already done.
#  - Debian: PoCL (OpenCL on the CPU) with the ICD loader's unversioned libOpenCL.so, GoogleTest, Graphviz, clang-format.
#  - A project-local venv (.venv) with halide==21.0.0, cmake>=3.28 and ninja from PyPI.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

debs=(pocl-opencl-icd ocl-icd-opencl-dev ocl-icd-libopencl1 libgtest-dev graphviz clang-format)
missing=()
for p in "${debs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "[setup] installing Debian packages: ${missing[*]}"
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

reqs="halide==21.0.0 cmake>=3.28 ninja"
stamp=".venv/.solder-installed"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$reqs" ]; then
  echo "[setup] creating .venv with: $reqs"
  python3 -m venv .venv
  .venv/bin/python -m pip install -q --upgrade pip >/dev/null
  # shellcheck disable=SC2086
  .venv/bin/python -m pip install -q $reqs
  echo "$reqs" > "$stamp"
fi
