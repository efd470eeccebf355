#!/usr/bin/env bash
# probe/call146: non-causal problems whose default still draws tiles from the dynamic counter (d=64 four-CTA
# prefill, unpacked 128-row chunk tiles, 64-row d=128/d=256 chunk tiles; draw_shapes.py -> shapes.txt) and
# the two d=64 shapes still below cuDNN: the default against scheduler=persistent, two rounds beside SDPA,
# each side timed with cuDNN's batch.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
source evidence/results/h100/hopper/probe/call146/shapes.txt  # SHAPES
HOPPER_PROBLEMS="$SHAPES" HOPPER_CONFIGS="default;default,scheduler=persistent" BENCH_ROUNDS=2 \
  timeout 240 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz p && rm -rf p results.tgz
