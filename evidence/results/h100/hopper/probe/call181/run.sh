#!/usr/bin/env bash
# probe/call181 (2026-11-27, sixth session): twenty-four random decode steps (draw_decode.py -> shapes.txt;
# the prediction is written there) after the split rules of probe/call175-180, the default only, two rounds
# beside SDPA, each side timed with cuDNN's batch. DEVICE_PACK=cli is enough.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
source evidence/results/h100/hopper/probe/call181/shapes.txt  # DECODE
HOPPER_PROBLEMS="$DECODE" HOPPER_CONFIGS=default BENCH_ROUNDS=2 \
  timeout 300 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz p && rm -rf p results.tgz
