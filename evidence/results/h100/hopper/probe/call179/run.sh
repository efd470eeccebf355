#!/usr/bin/env bash
# probe/call179 (2026-11-27, sixth session): call178's d=256 decode miss as a class (draw_shapes.py ->
# shapes.txt; the prediction is written there): the default against splits=2, 3, 4 and a 32-key ring of two
# key warps (two CTAs an SM), unsplit and split in 2, two rounds beside SDPA. DEVICE_PACK=cli is enough.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
source evidence/results/h100/hopper/probe/call179/shapes.txt  # OVER ONE
HOPPER_PROBLEMS="$OVER $ONE" BENCH_ROUNDS=2 \
  HOPPER_CONFIGS="default;default,splits=2;default,splits=3;default,splits=4;default,block_n=32,kv_warps=2,warps=2;default,block_n=32,kv_warps=2,warps=2,splits=2" \
  timeout 520 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz p && rm -rf p results.tgz
