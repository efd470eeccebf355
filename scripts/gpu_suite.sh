#!/usr/bin/env bash
# Everything that needs the GPU, in one call, for the device machine:
#   scripts/gpu_suite.sh [BUILD_DIR] [OUT_DIR]
# Runs against a build made elsewhere (default build/), and writes every output to OUT_DIR (default
# $OUT, else gpu-results/): versions, device figures, the self-test, the full test suite (GPU tests
# included) and the compile benchmark on that machine's CPU. The last lines printed are a summary.
set -uo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
out="${2:-${OUT:-gpu-results}}"
mkdir -p "$out"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export EVOTUNE_CACHE_DIR="${EVOTUNE_CACHE_DIR:-/tmp/evotune-cache}"
evotune="$build/cli/evotune"

declare -A results
step() {  # step NAME FILE COMMAND...: run, keep output in FILE, remember the exit code
  local name="$1" file="$2"
  shift 2
  { echo "\$ $*"; "$@"; } >"$out/$file" 2>&1
  results[$name]=$?
  echo "== $name: exit ${results[$name]} ($out/$file)"
}

{
  date -u +"%Y-%m-%dT%H:%M:%SZ"
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv 2>&1
  git rev-parse HEAD 2>/dev/null || true
} >"$out/machine.txt"
step version version.txt "$evotune" --version
step devices devices.txt "$evotune" devices
step devices_json devices.json "$evotune" devices --json
step selftest selftest.txt "$evotune" selftest --variants 16
# Again, now answered from the cubin cache: the resource report must survive the round trip.
step selftest_cached selftest_cached.txt "$evotune" selftest --variants 16
step tests tests.txt "$build/tests/evotune_tests" --gtest_color=no
step compile_bench compile_bench.txt "$evotune" compile-bench --count 64 --threads 16
# The attention benchmark table (evotune, cuBLAS baseline, PyTorch SDPA) into its own folder.
step attention_bench attention_bench.txt scripts/bench_attention.sh "$build" "$out/attention"

echo
echo "summary:"
status=0
for name in version devices devices_json selftest selftest_cached tests compile_bench attention_bench; do
  printf '  %-14s %s\n' "$name" "$([[ ${results[$name]} -eq 0 ]] && echo ok || echo "FAILED (exit ${results[$name]})")"
  [[ ${results[$name]} -eq 0 ]] || status=1
done
grep -E "^\[  (PASSED|FAILED|SKIPPED) " "$out/tests.txt" | head -20
exit $status
