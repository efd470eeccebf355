#!/usr/bin/env bash
# probe/call105: every GPU test at the code where the last session ended (65f3e84's 64-row small-grid TMA
# store and 98a6bac's two GPU cases for it had not run on a GPU).
# Every C++ GPU test, the tuned_attention example (the AOT header with no NVRTC loaded), and the PyTorch
# op's GPU tests. Packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 330 scripts/gpu_hopper.sh build-device "$OUT/hopper" machine gpu_tests
timeout 250 scripts/gpu_production.sh build-device "$OUT/production" example torch_tests
cd "$OUT" && tar czf all.tgz hopper production && rm -rf hopper production results.tgz
