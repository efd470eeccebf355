#!/usr/bin/env bash
# probe/call109: with the AOT table re-exported for skip_idle's kernel sources (call108), every C++ GPU test
# (the skip_idle cases with CTAs walking several tiles), the tuned_attention example (the AOT header with no
# NVRTC loaded), and the PyTorch op's GPU tests. Packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 300 scripts/gpu_hopper.sh build-device "$OUT/hopper" machine gpu_tests
timeout 250 scripts/gpu_production.sh build-device "$OUT/production" example torch_tests
cd "$OUT" && tar czf all.tgz hopper production && rm -rf hopper production results.tgz
