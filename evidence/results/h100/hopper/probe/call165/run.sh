#!/usr/bin/env bash
# probe/call165: a ninth survey of the default at e0c430b's rules (after the chunk-tail rule's 600-key bound):
# 60 random shapes drawn after them (`python3 scripts/probe_draw.py survey --seed 20261165 --exclude-dir
# call165` -> shapes.txt, call158's draw with a new seed; 16 decode-like or short chunks), two rounds beside
# SDPA, each side timed with cuDNN's batch.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
source evidence/results/h100/hopper/probe/call165/shapes.txt  # SURVEY
HOPPER_PROBLEMS="$SURVEY" HOPPER_CONFIGS=default BENCH_ROUNDS=2 \
  timeout 420 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz p && rm -rf p results.tgz
