#!/usr/bin/env bash
# probe/call177 (2026-11-27, sixth session): the holdout of the within-the-streams split count (draw_shapes.py
# -> shapes.txt; the prediction is written there): the default against splits=1-4, two rounds beside SDPA;
# then the GPU tests and compute-sanitizer on a d=64 decode tail shape the rule splits (b35 hq4 hkv2 sq3
# skv4097 causal bf16: 70 CTAs, 3 chunks). Needs a full build pack of the rule's commit.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
source evidence/results/h100/hopper/probe/call177/shapes.txt  # SHAPES
HOPPER_PROBLEMS="$SHAPES" BENCH_ROUNDS=2 \
  HOPPER_CONFIGS="default;default,splits=1;default,splits=2;default,splits=3;default,splits=4" \
  timeout 200 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b="
timeout 240 scripts/gpu_hopper.sh build-device "$OUT/tests" machine gpu_tests | tail -5
SANITIZE_PROBLEM="b=35,hq=4,hkv=2,sq=3,skv=4097,d=64,causal=1,dtype=bf16" \
  timeout 150 scripts/gpu_hopper.sh build-device "$OUT/sanitize_d64_split" sanitize | tail -8
cd "$OUT" && tar czf all.tgz p tests sanitize_d64_split && rm -rf p tests sanitize_d64_split results.tgz
