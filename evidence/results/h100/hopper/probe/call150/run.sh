#!/usr/bin/env bash
# probe/call150: the tile_order rule at a 5% modeled gain, held out: sixteen random causal shapes drawn after
# it whose default it moves to tile_order=sections (MOVED; draw_shapes.py -> shapes.txt), the default against
# the same default with tile_order=heads (the default before the rule), two rounds beside SDPA, each side
# timed with cuDNN's batch; compute-sanitizer (memcheck, racecheck, synccheck) on a small causal MQA tail
# shape whose default takes sections (the dynamic scheduler).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
source evidence/results/h100/hopper/probe/call150/shapes.txt  # MOVED, KEPT
HOPPER_PROBLEMS="$MOVED" timeout 60 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa | tail -2
HOPPER_PROBLEMS="$MOVED" HOPPER_CONFIGS="default;default,tile_order=heads" BENCH_ROUNDS=2 \
  timeout 150 scripts/gpu_hopper.sh build-device "$OUT/p" probe | grep -v "^[12] b="
SANITIZE_PROBLEM="b=9,hq=8,hkv=1,sq=157,skv=157,d=128,causal=1,dtype=bf16" \
  timeout 300 scripts/gpu_hopper.sh build-device "$OUT/sanitize" sanitize
cd "$OUT" && tar czf all.tgz p sanitize && rm -rf p sanitize results.tgz
