#!/usr/bin/env bash
# probe/call158: an eighth survey of the default after the padding, chunk-tail and grid-store rules
# (call155-157): 60 random shapes drawn after them (draw_shapes.py -> shapes.txt, call145's draw with a new
# seed; 16 decode-like or short chunks), two rounds beside SDPA, each side timed with cuDNN's batch.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
source evidence/results/h100/hopper/probe/call158/shapes.txt  # SURVEY
HOPPER_PROBLEMS="$SURVEY" HOPPER_CONFIGS=default BENCH_ROUNDS=2 \
  timeout 420 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz p && rm -rf p results.tgz
