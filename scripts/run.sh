#!/usr/bin/env bash
# Set up, build, and run evotune's main job. Today that is `evotune devices` on a machine with a GPU;
# without one it says so and runs the CPU-side compile benchmark instead.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
export PATH="${CUDA_HOME:-/usr/local/cuda}/bin:$PATH"
cmake --preset release >/dev/null
cmake --build --preset release --target evotune

status=0
build/cli/evotune devices || status=$?
if [[ $status -eq 3 ]]; then
  echo "run: no GPU on this machine; running the compile benchmark (no GPU needed) instead"
  build/cli/evotune compile-bench
elif [[ $status -ne 0 ]]; then
  exit $status
fi
