#!/usr/bin/env bash
# probe/call118: at the end of this session's changes (the non-causal d=128 block-width rule, the example
# timed by the search's own timer): every C++ GPU test, the tuned_attention example on the AOT header's
# problems (no NVRTC loaded; the time now a CUDA graph under 20 us, as the search's), and the PyTorch op's GPU
# tests. Packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 300 scripts/gpu_hopper.sh build-device "$OUT/hopper" machine gpu_tests
timeout 250 scripts/gpu_production.sh build-device "$OUT/production" example torch_tests
cd "$OUT" && tar czf all.tgz hopper production && rm -rf hopper production results.tgz
