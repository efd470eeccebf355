#!/usr/bin/env bash
# probe/call149: the tile_order rule (with_tile_order: sections where the list-scheduling model gains 2%,
# sized by a third of L2 and cut evenly), held out: (1) sixteen random causal shapes drawn after it whose
# default it moves (MOVED) and call148's twelve it moves (AGAIN), the default against the same default with
# tile_order=heads (the default before the rule: heads' SASS is the build before the tunable's); (2) six
# random causal shapes it leaves on heads (KEPT), the default against tile_order=sections; two rounds beside
# SDPA, each side timed with cuDNN's batch (shapes.txt, draw_shapes.py); (3) the wgmma GPU test (its
# tile_order=sections cases now with two whole sections and a short one, and more tiles than CTAs);
# (4) compute-sanitizer on a small causal GQA tail shape whose default takes sections.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
source evidence/results/h100/hopper/probe/call149/shapes.txt  # MOVED, KEPT, AGAIN
HOPPER_PROBLEMS="$MOVED $AGAIN $KEPT" timeout 70 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa | tail -2
for side in moved kept; do mkdir -p "$OUT/$side/hopper" && cp "$OUT"/p/hopper/sdpa.* "$OUT/$side/hopper/"; done
HOPPER_PROBLEMS="$MOVED $AGAIN" HOPPER_CONFIGS="default;default,tile_order=heads" BENCH_ROUNDS=2 \
  timeout 200 scripts/gpu_hopper.sh build-device "$OUT/moved" probe | grep -v "^[12] b="
HOPPER_PROBLEMS="$KEPT" HOPPER_CONFIGS="default;default,tile_order=sections" BENCH_ROUNDS=2 \
  timeout 60 scripts/gpu_hopper.sh build-device "$OUT/kept" probe | grep -v "^[12] b="
mkdir -p "$OUT/tests"
timeout 120 build-device/tests/evotune_tests --gtest_color=no --gtest_filter='GpuAttention.WgmmaMatchesTheReference' \
  >"$OUT/tests/wgmma_test.txt" 2>&1; tail -3 "$OUT/tests/wgmma_test.txt"
SANITIZE_PROBLEM="b=6,hq=6,hkv=2,sq=517,skv=517,d=128,causal=1,dtype=bf16" \
  timeout 120 scripts/gpu_hopper.sh build-device "$OUT/sanitize" sanitize
cd "$OUT" && tar czf all.tgz p moved kept tests sanitize && rm -rf p moved kept tests sanitize results.tgz
