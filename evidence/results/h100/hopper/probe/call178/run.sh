#!/usr/bin/env bash
# probe/call178 (2026-11-27, sixth session): an eleventh survey of the default, after the d=64 decode split
# rule (probe/call175-177): SURVEY, 60 random shapes (`python3 scripts/probe_draw.py survey --seed 20261178
# --exclude-dir call178`, call165's draw with a new seed; 16 decode-like or short chunks), and DECODE, twenty
# random decode steps (draw_decode.py, its prediction there), two rounds beside SDPA, each side timed with
# cuDNN's batch. Prediction for SURVEY, written before the call: the default at or above the stronger library
# on at least 57 of the 60 (the surveys of calls 158, 165 and 174: 58 each).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
source evidence/results/h100/hopper/probe/call178/shapes.txt  # SURVEY DECODE
HOPPER_PROBLEMS="$SURVEY $DECODE" HOPPER_CONFIGS=default BENCH_ROUNDS=2 \
  timeout 520 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz p && rm -rf p results.tgz
