#!/usr/bin/env bash
# probe/call180 (2026-11-27, sixth session): the holdout of the wave rule for grids of one-an-SM tiles
# (draw_shapes.py -> shapes.txt; the prediction is written there): the default against splits=1 (the
# previous default), 2 and 4, two rounds beside SDPA. DEVICE_PACK=cli is enough.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
source evidence/results/h100/hopper/probe/call180/shapes.txt  # SHAPES
HOPPER_PROBLEMS="$SHAPES" BENCH_ROUNDS=2 \
  HOPPER_CONFIGS="default;default,splits=1;default,splits=2;default,splits=4" \
  timeout 400 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz p && rm -rf p results.tgz
