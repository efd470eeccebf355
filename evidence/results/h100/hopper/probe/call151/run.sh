#!/usr/bin/env bash
# probe/call151, at the final tile_order rule (sections where the tail model gains 10%, or 5% with 8+ query
# tiles a head): (1) held out: sixteen random causal shapes drawn after it whose default it moves (MOVED;
# draw_shapes.py -> shapes.txt), the default against tile_order=heads, two rounds beside SDPA, each side
# timed with cuDNN's batch; (2) compute-sanitizer on a small causal GQA tail shape whose default takes
# sections; (3) every C++ GPU test, the PyTorch op's GPU tests and the AOT example (the table exported in
# call148, examples/tuned_attention.h).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
source evidence/results/h100/hopper/probe/call151/shapes.txt  # MOVED, KEPT
HOPPER_PROBLEMS="$MOVED" timeout 50 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa | tail -2
HOPPER_PROBLEMS="$MOVED" HOPPER_CONFIGS="default;default,tile_order=heads" BENCH_ROUNDS=2 \
  timeout 110 scripts/gpu_hopper.sh build-device "$OUT/p" probe | grep -v "^[12] b="
SANITIZE_PROBLEM="b=2,hq=32,hkv=4,sq=277,skv=277,d=128,causal=1,dtype=bf16" \
  timeout 100 scripts/gpu_hopper.sh build-device "$OUT/sanitize" sanitize
timeout 230 scripts/gpu_hopper.sh build-device "$OUT/tests" gpu_tests
timeout 100 scripts/gpu_production.sh build-device "$OUT/production" torch_tests example | tail -4
cd "$OUT" && tar czf all.tgz p sanitize tests production && rm -rf p sanitize tests production results.tgz
