#!/usr/bin/env bash
# probe/call176 (2026-11-27, sixth session): the holdout of the d=64 decode split rule fit on probe/call175
# (draw_shapes.py -> shapes.txt; the prediction is written there): the default against splits=1 (the previous
# default), 2, 3 and 4, two rounds beside SDPA, each side timed with cuDNN's batch. Needs a build of the rule
# (DEVICE_PACK=cli is enough).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
source evidence/results/h100/hopper/probe/call176/shapes.txt  # SPLIT WHOLE
HOPPER_PROBLEMS="$SPLIT $WHOLE" BENCH_ROUNDS=2 \
  HOPPER_CONFIGS="default;default,splits=1;default,splits=2;default,splits=3;default,splits=4" \
  timeout 500 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz p && rm -rf p results.tgz
