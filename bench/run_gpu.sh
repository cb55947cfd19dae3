#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, with bench/out copied there from the build
# machine: every CUDA library under solder-exec (checked against the references, then timed with
# the L2 flushed before each run), then the torch peers, in the same run. Logs go to $OUT.
#   OUT=bench/logs/h100-YYYY-MM-DD ITERS=30 bash bench/run_gpu.sh
# LIB_DIR (default bench/out/libs) names the folder of libraries to run, so that a large set can be
# split over calls; TORCH=0 leaves out the torch peers (for a call of image apps only).
set -uo pipefail
out="${OUT:-/tmp/solder-bench}"
mkdir -p "$out"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader | tee "$out/device.txt"
dev="$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
# Libraries whose one call takes seconds (Mullapudi2016's nvfuser_2146: 4 s) run a few times only,
# so that the whole run stays under 10 minutes.
slow="${SLOW_LIBS:-nvfuser_2146__mullapudi2016}"
libs=() slow_libs=()
lib_dir="${LIB_DIR:-bench/out/libs}"
for lib in "$lib_dir"/*.so; do
  if [[ -n "$slow" && "$(basename "$lib")" =~ $slow ]]; then slow_libs+=("$lib"); else libs+=("$lib"); fi
done
# Each library in a process of its own, stopped after LIB_TIMEOUT seconds: a kernel that faults
# (CUDA_ERROR_ILLEGAL_ADDRESS) leaves the context unusable, and in one shared process every later
# library then failed with it.
{
  for lib in "${libs[@]}"; do
    timeout "${LIB_TIMEOUT:-60}" bench/out/solder-exec "$lib" --machine --iters "${ITERS:-30}" --warmup 5 --device "$dev" 2>&1 ||
      echo "  error: $(basename "$lib"): exit status $?"
  done
  for lib in "${slow_libs[@]}"; do
    timeout "${LIB_TIMEOUT:-60}" bench/out/solder-exec "$lib" --machine --iters 3 --warmup 1 --device "$dev" 2>&1 ||
      echo "  error: $(basename "$lib"): exit status $?"
  done
} | tee "$out/solder.log" | grep -E "^(SOLDER_RESULT|  error)" | cut -c1-220
if [ "${TORCH:-1}" != 0 ]; then
  PYTHONUNBUFFERED=1 python3 bench/out/torch_peers.py 2>&1 | tee "$out/peers.log" | tail -3 | cut -c1-300
  # The ML suite's PyTorch versions (bench/torch_suite.py): one JSON line per app.
  python3 bench/torch_suite.py 2>&1 | tee "$out/torch_suite.log" | grep name | cut -c1-300
fi
# Per-kernel view of Solder's libraries: grid/block/shared memory of each launch, and each kernel's
# device time from CUDA events with its planned bytes (SOLDER_DUMP=launch,bandwidth; extra runs
# after the timed ones, so the table above is unaffected).
bench/out/solder-exec "$lib_dir"/*__solder__cuda__*.so --iters 10 --warmup 3 --dump launch,bandwidth \
  > "$out/solder_dumps.log" 2>&1
grep -E "^==== SOLDER_DUMP bandwidth|^  k[0-9]|^kernels:|^pipeline:" "$out/solder_dumps.log" | cut -c1-160 | head -80
