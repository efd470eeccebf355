#!/usr/bin/env bash
# probe/call190 (2026-11-27, eighth session): the holdout of the lone-last-wave split rule (draw_shapes.py ->
# shapes.txt; the predictions are written there): the default, unsplit and 2 chunks, two rounds beside SDPA,
# each side timed with cuDNN's batch; then the GPU tests at the rule's commit. Needs a full build pack.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
source evidence/results/h100/hopper/probe/call190/shapes.txt  # LONE EDGE
HOPPER_PROBLEMS="$LONE $EDGE" BENCH_ROUNDS=2 HOPPER_CONFIGS="default;default,splits=1;default,splits=2" \
  timeout 200 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b=" | tail -3
timeout 250 scripts/gpu_hopper.sh build-device "$OUT/tests" machine gpu_tests | tail -5
cd "$OUT" && tar czf all.tgz p tests && rm -rf p tests results.tgz
