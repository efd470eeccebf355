#!/usr/bin/env bash
# probe/call182 (prepared 2026-11-27, sixth session; not yet run): call181's two decode misses as classes
# (draw_shapes.py -> shapes.txt; the predictions are written there), two rounds beside SDPA, each side timed
# with cuDNN's batch. Needs a build of d69d5c0's code or later (DEVICE_PACK=cli is enough). ~4 minutes.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
source evidence/results/h100/hopper/probe/call182/shapes.txt  # JUST_PAST ONE_WAVE
HOPPER_PROBLEMS="$JUST_PAST" BENCH_ROUNDS=2 \
  HOPPER_CONFIGS="default;default,stages=3;default,splits=2;default,splits=2,stages=3" \
  timeout 250 scripts/gpu_hopper.sh build-device "$OUT/just_past" machine sdpa probe | grep -v "^[12] b="
HOPPER_PROBLEMS="$ONE_WAVE" BENCH_ROUNDS=2 \
  HOPPER_CONFIGS="default;default,splits=2;default,splits=3;default,splits=4;default,splits=6" \
  timeout 300 scripts/gpu_hopper.sh build-device "$OUT/one_wave" machine sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz just_past one_wave && rm -rf just_past one_wave results.tgz
