#!/usr/bin/env bash
# probe/call46: the producer's slot waits with a suspend-time hint (B1: try_wait sleeps until the phase
# completes instead of spinning) and every mbarrier wait with it (B2), against the waits before (A), on the
# defaults of short and long shapes; the wgmma GPU tests on B1; the table exported from B1. Run from the
# repository root on the device machine: build-device/ is B1, build-device/v0/ A, build-device/v2/ B2.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
here=evidence/results/h100/hopper/probe/call46
R=/tmp/call46; mkdir -p "$R"
pack() { tar czf "$OUT/results.tgz" -C "$R" .; }
mapfile -t c <"$here/cases.txt"
ROUNDS=2 REPS=300 timeout 300 scripts/ab_builds.sh "$R/ab_waits.txt" \
  "A=build-device/v0/evotune,B1=build-device/cli/evotune,B2=build-device/v2/evotune" "${c[@]}" >/dev/null; pack
EVOTUNE_SOURCE_DIR=$PWD timeout 100 build-device/tests/evotune_tests --gtest_color=no \
  --gtest_filter='GpuAttention.Wgmma*' >"$R/wgmma_tests.txt" 2>&1
echo "wgmma tests: exit $?"; grep -E "^\[  (PASSED|FAILED) |^\[  FAILED|Failure" "$R/wgmma_tests.txt" | head; pack
OUT= timeout 120 scripts/gpu_production.sh build-device "$R/p" export; pack
cat "$R/ab_waits.txt"
