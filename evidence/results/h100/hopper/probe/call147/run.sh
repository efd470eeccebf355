#!/usr/bin/env bash
# probe/call147: held out at the thin end of the chunk rule (effeee9): ten chunks of 17-23 queries that the
# rule moved from the mma.sync path to wgmma (draw_shapes.py -> shapes.txt), this build's default against
# 241959c's (build-base), two rounds beside SDPA, each side timed with cuDNN's batch.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
source evidence/results/h100/hopper/probe/call147/shapes.txt  # HELD
HOPPER_PROBLEMS="$HELD" timeout 40 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa | tail -2
BASE_BUILD=build-base HOPPER_PROBLEMS="$HELD" HOPPER_CONFIGS=default BENCH_ROUNDS=2 \
  timeout 150 scripts/gpu_hopper.sh build-device "$OUT/p" probe | grep -v "^[12] b="
cat build-base/source_commit.txt
cd "$OUT" && tar czf all.tgz p && rm -rf p results.tgz
