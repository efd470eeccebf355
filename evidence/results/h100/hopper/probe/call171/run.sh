#!/usr/bin/env bash
# probe/call171, at the upload fix: (1) upload_race.cpp (built on the CPU machine, carried as
# build-pack/upload_race): cuMemcpyHtoD then a copy on a non-blocking stream, with and without a wait for the
# legacy stream between them; (2) the GPU upload test and the smoke test, ten times over; (3) every C++ GPU
# test; (4) compute-sanitizer on call170's d=128 decode shape again with a longer limit (its synccheck was cut
# off by call170's 60 s).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
mkdir -p "$OUT/race"
build-pack/upload_race 50 2>&1 | tee "$OUT/race/upload_race.txt"
EVOTUNE_SOURCE_DIR=$PWD timeout 120 build-device/tests/evotune_tests --gtest_filter='GpuDevice.*:GpuSmoke.*' \
  --gtest_repeat=10 >"$OUT/race/smoke_repeat.txt" 2>&1; echo "smoke x10: exit $?"; grep -c "^\[       OK \]" "$OUT/race/smoke_repeat.txt"
timeout 230 scripts/gpu_hopper.sh build-device "$OUT/tests" machine gpu_tests
SANITIZE_PROBLEM="b=23,hq=16,hkv=8,sq=2,skv=1799,d=128,causal=1,dtype=bf16" \
  timeout 200 scripts/gpu_hopper.sh build-device "$OUT/sanitize_decode" sanitize
cd "$OUT" && tar czf all.tgz race tests sanitize_decode && rm -rf race tests sanitize_decode results.tgz
