#!/usr/bin/env bash
# probe/call183 (2026-11-27, seventh session): the holdout of 14a2e75's one-wave split rule (draw_shapes.py ->
# shapes.txt; the predictions are written there): the default, unsplit and 4 chunks, two rounds beside SDPA;
# then the GPU tests and compute-sanitizer on a causal GQA tail shape the rule splits (b33 hq4 hkv2 sq3
# skv2500 d256 bf16: 66 CTAs, 2 chunks). Needs a full build pack of 14a2e75 or later.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
source evidence/results/h100/hopper/probe/call183/shapes.txt  # HOLDOUT
HOPPER_PROBLEMS="$HOLDOUT" BENCH_ROUNDS=2 HOPPER_CONFIGS="default;default,splits=1;default,splits=4" \
  timeout 200 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b="
timeout 240 scripts/gpu_hopper.sh build-device "$OUT/tests" machine gpu_tests | tail -5
SANITIZE_PROBLEM="b=33,hq=4,hkv=2,sq=3,skv=2500,d=256,causal=1,dtype=bf16" \
  timeout 150 scripts/gpu_hopper.sh build-device "$OUT/sanitize_d256_split" sanitize | tail -8
cd "$OUT" && tar czf all.tgz p tests sanitize_d256_split && rm -rf p tests sanitize_d256_split results.tgz
