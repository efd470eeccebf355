#!/usr/bin/env bash
# probe/call189 (2026-11-27, eighth session), after probe/call188: split counts on decode grids of more CTAs
# than the slots of their tile (draw_shapes.py -> shapes.txt; the predictions are written there). Two rounds
# beside SDPA, each side timed with cuDNN's batch. Needs a build of 413016b or later (DEVICE_PACK=cli).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
source evidence/results/h100/hopper/probe/call189/shapes.txt  # SPLIT128 CONTROL128 D64
HOPPER_PROBLEMS="$SPLIT128 $CONTROL128 $D64" BENCH_ROUNDS=2 \
  HOPPER_CONFIGS="default;default,splits=2;default,splits=3;default,splits=4;default,splits=6;\
default,splits=3,stages=3" \
  timeout 420 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b=" | tail -3
cd "$OUT" && tar czf all.tgz p && rm -rf p results.tgz
