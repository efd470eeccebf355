#!/usr/bin/env bash
# probe/call157, at the chunk-tail and grid-store rules: (1) held out, build against build (build-base:
# d821a02, before them): random shapes drawn after them whose default they move (draw_shapes.py ->
# shapes.txt), two rounds beside SDPA, each side timed with cuDNN's batch; (2) compute-sanitizer on a small
# causal MHA chunk the tail rule moves (the 128-row chunk config over odd queries and keys); (3) every C++
# GPU test and the PyTorch op's GPU tests.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
source evidence/results/h100/hopper/probe/call157/shapes.txt  # TAILS GRIDS PACKED
HOPPER_PROBLEMS="$TAILS $GRIDS $PACKED" timeout 50 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa | tail -2
HOPPER_PROBLEMS="$TAILS $GRIDS $PACKED" BASE_BUILD=build-base HOPPER_CONFIGS=default BENCH_ROUNDS=2 \
  timeout 140 scripts/gpu_hopper.sh build-device "$OUT/p" probe | grep -v "^[12] b="
SANITIZE_PROBLEM="b=37,hq=16,hkv=16,sq=21,skv=301,d=64,causal=1,dtype=fp16" \
  timeout 90 scripts/gpu_hopper.sh build-device "$OUT/sanitize" sanitize
timeout 220 scripts/gpu_hopper.sh build-device "$OUT/tests" gpu_tests
timeout 70 scripts/gpu_production.sh build-device "$OUT/production" torch_tests | tail -4
cd "$OUT" && tar czf all.tgz p sanitize tests production && rm -rf p sanitize tests production results.tgz
