#!/usr/bin/env bash
# probe/call168: call167's last-wave lead held out (draw_shapes.py -> shapes.txt; the rule's pick per shape and the prediction are written there):
# d=128 decode-like grids of the mma.sync default, the default (three stages) against stages=2, two rounds
# beside SDPA, each side timed with cuDNN's batch.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
source evidence/results/h100/hopper/probe/call168/shapes.txt  # RULE
HOPPER_PROBLEMS="$RULE" BENCH_ROUNDS=2 HOPPER_CONFIGS="default;default,stages=2" \
  timeout 300 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz p && rm -rf p results.tgz
