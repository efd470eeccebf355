#!/usr/bin/env bash
# probe/call175 (prepared 2026-11-27, fifth session; not yet run): call174's d=64 decode hole as a class
# (draw_shapes.py -> shapes.txt; the prediction is written there): the default (unsplit) against splits=2, 3
# and 4, two rounds beside SDPA, each side timed with cuDNN's batch. Needs a build of 8d9f510's code or later
# (DEVICE_PACK=cli is enough).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
source evidence/results/h100/hopper/probe/call175/shapes.txt  # D64 D128
HOPPER_PROBLEMS="$D64 $D128" BENCH_ROUNDS=2 HOPPER_CONFIGS="default;default,splits=2;default,splits=3;default,splits=4" \
  timeout 400 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz p && rm -rf p results.tgz
