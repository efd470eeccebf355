#!/usr/bin/env bash
# probe/call145: a sixth survey of the default at this session's final rules (short chunks from 17 queries,
# d=128's 64-row chunk tiles two CTAs per SM, three stages for d=64's 128-row chunk tiles, non-causal d=128
# and d=256 on the persistent walk): 60 random shapes (draw_shapes.py -> shapes.txt; 16 decode-like or short
# chunks), two rounds beside SDPA, each side timed with cuDNN's batch.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
source evidence/results/h100/hopper/probe/call145/shapes.txt  # SURVEY
HOPPER_PROBLEMS="$SURVEY" HOPPER_CONFIGS=default BENCH_ROUNDS=2 \
  timeout 420 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz p && rm -rf p results.tgz
