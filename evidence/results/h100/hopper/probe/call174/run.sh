#!/usr/bin/env bash
# probe/call174: a tenth survey of the default at the d=128 decode stage rule (8d9f510):
# 60 random shapes drawn after them (`python3 scripts/probe_draw.py survey --seed 20261174 --exclude-dir
# call174` -> shapes.txt, call165's draw with a new seed; 16 decode-like or short chunks), two rounds beside
# SDPA, each side timed with cuDNN's batch.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
source evidence/results/h100/hopper/probe/call174/shapes.txt  # SURVEY
HOPPER_PROBLEMS="$SURVEY" HOPPER_CONFIGS=default BENCH_ROUNDS=2 \
  timeout 420 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz p && rm -rf p results.tgz
