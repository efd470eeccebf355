#!/usr/bin/env bash
# probe/call192 (2026-11-27, eighth session): d=128 decode grids of the 16-row tile one wave past the SMs
# (draw_shapes.py -> shapes.txt; the predictions are written there), two rounds beside SDPA, each side timed
# with cuDNN's batch. Needs a build of 0ac4626 or later (DEVICE_PACK=cli is enough). ~2-3 minutes.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
source evidence/results/h100/hopper/probe/call192/shapes.txt  # ONEWAVE
HOPPER_PROBLEMS="$ONEWAVE" BENCH_ROUNDS=2 \
  HOPPER_CONFIGS="default;default,stages=3;default,splits=2;default,block_n=128,stages=2;\
default,mma=wgmma,block_m=64,block_n=128,stages=3;default,mma=wgmma,block_m=64,block_n=64,stages=4" \
  timeout 300 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b=" | tail -3
cd "$OUT" && tar czf all.tgz p && rm -rf p results.tgz
