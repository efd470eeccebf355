#!/usr/bin/env bash
# probe/call169: the d=128 decode grids' stage rule held out, build against build (build-base: eb58128, before
# it): random shapes whose default it moves (draw_shapes.py -> shapes.txt; the prediction is written there),
# two rounds beside SDPA, each side timed with cuDNN's batch.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
source evidence/results/h100/hopper/probe/call169/shapes.txt  # MOVED
HOPPER_PROBLEMS="$MOVED" BASE_BUILD=build-base HOPPER_CONFIGS=default BENCH_ROUNDS=2 \
  timeout 300 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz p && rm -rf p results.tgz
