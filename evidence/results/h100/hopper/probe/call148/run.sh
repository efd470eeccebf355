#!/usr/bin/env bash
# probe/call148: tile_order=sections (the tiles in L2-sized sections of heads, each section's longest first)
# against tile_order=heads (the order before it; SASS identical to the build before the tunable) on each
# problem's default: eighteen causal shapes (the three causal rows and the classes of the surveys:
# d=128 128-row tiles on the dynamic scheduler, d=64 four-CTA grids and 192-row walks, d=256, a chunked
# prefill) and four non-causal ones (L2 order only), two rounds beside SDPA, each side timed with cuDNN's
# batch (shapes.txt); then the wgmma GPU test with its tile_order=sections cases, and the AOT table exported
# again (the kernel sources' digest moved) and re-verified on this GPU.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
source evidence/results/h100/hopper/probe/call148/shapes.txt  # CAUSAL, NONCAUSAL
HOPPER_PROBLEMS="$CAUSAL $NONCAUSAL" timeout 70 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa | tail -2
HOPPER_PROBLEMS="$CAUSAL $NONCAUSAL" HOPPER_CONFIGS="default;default,tile_order=sections" BENCH_ROUNDS=2 \
  timeout 300 scripts/gpu_hopper.sh build-device "$OUT/p" probe | grep -v "^[12] b="
mkdir -p "$OUT/tests"
timeout 100 build-device/tests/evotune_tests --gtest_color=no --gtest_filter='GpuAttention.WgmmaMatchesTheReference' \
  >"$OUT/tests/wgmma_test.txt" 2>&1; tail -3 "$OUT/tests/wgmma_test.txt"
timeout 90 scripts/gpu_production.sh build-device "$OUT/production" export
cd "$OUT" && tar czf all.tgz p tests production && rm -rf p tests production results.tgz
