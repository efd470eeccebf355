#!/usr/bin/env bash
# probe/call166: K/V-bandwidth-bound MHA decode-like shapes (draw_shapes.py -> shapes.txt): the default (the
# mma.sync grid, 64-key blocks, three stages) against other ring depths, 128-key blocks and two K/V chunks,
# two rounds beside SDPA, each side timed with cuDNN's batch.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
source evidence/results/h100/hopper/probe/call166/shapes.txt  # BOUND
HOPPER_PROBLEMS="$BOUND" BENCH_ROUNDS=2 \
  HOPPER_CONFIGS="default;default,stages=2;default,stages=4;default,block_n=128,stages=2;default,block_n=128,stages=3;default,splits=2" \
  timeout 400 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz p && rm -rf p results.tgz
