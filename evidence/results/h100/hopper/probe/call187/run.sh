#!/usr/bin/env bash
# probe/call187 (2026-11-27, seventh session): the 20 C++ GPU tests at the session's final rules; then two
# residual shapes of the surveys, probed for the next session (exploratory, two rounds beside SDPA, each side
# timed with cuDNN's batch): b80 hq4 hkv4 sq8 skv26684 d128 fp16 (call184's decode survey: 0.966x cuDNN, 320
# CTAs of the 16-row tile, two stages) with three stages and 2 or 3 chunks; b25 hq4 hkv4 sq5 skv18792 d256
# bf16 (call185: 6 chunks 0.987x cuDNN, 8 chunks 1.021x) with both counts again.
# Predictions, written before the call: b80, one of the three alternatives 2%+ faster than the default;
# b25, 8 chunks 2%+ faster than 6 again.
# Needs a full build pack (the test binary) of the session's final commit.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 200 scripts/gpu_hopper.sh build-device "$OUT/tests" machine gpu_tests | tail -3
HOPPER_PROBLEMS="b=80,hq=4,hkv=4,sq=8,skv=26684,d=128,causal=0,dtype=fp16" BENCH_ROUNDS=2 \
  HOPPER_CONFIGS="default;default,stages=3;default,splits=2;default,splits=3" \
  timeout 40 scripts/gpu_hopper.sh build-device "$OUT/b80" machine sdpa probe | tail -1
HOPPER_PROBLEMS="b=25,hq=4,hkv=4,sq=5,skv=18792,d=256,causal=0,dtype=bf16" BENCH_ROUNDS=2 \
  HOPPER_CONFIGS="default;default,splits=8" \
  timeout 30 scripts/gpu_hopper.sh build-device "$OUT/b25" machine sdpa probe | tail -1
cd "$OUT" && tar czf all.tgz tests b80 b25 && rm -rf tests b80 b25 results.tgz
