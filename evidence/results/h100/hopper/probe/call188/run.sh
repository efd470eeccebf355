#!/usr/bin/env bash
# probe/call188 (prepared 2026-11-27, seventh session; not yet run): MHA d=128 decode, the surveys' systematic
# residual (draw_shapes.py -> shapes.txt; the predictions are written there), two rounds beside SDPA, each side
# timed with cuDNN's batch. Needs a build of 6f79240 or later (DEVICE_PACK=cli is enough). ~4-7 minutes: give
# the call 540 s, and start it on a fresh session's budget.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
source evidence/results/h100/hopper/probe/call188/shapes.txt  # MHA
HOPPER_PROBLEMS="$MHA" BENCH_ROUNDS=2 \
  HOPPER_CONFIGS="default;default,stages=2;default,stages=3;default,block_n=128,stages=2;\
mma=wgmma,block_m=64,block_n=128,stages=3;mma=wgmma,block_m=64,block_n=64,stages=4;default,splits=2" \
  timeout 450 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b=" | tail -3
cd "$OUT" && tar czf all.tgz p && rm -rf p results.tgz
