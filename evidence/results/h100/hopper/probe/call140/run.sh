#!/usr/bin/env bash
# probe/call140: at the final code of this session's rules (4d53ad2: short query chunks on wgmma, packed
# 192-row tiles near the four-CTA bound, the d=64 packed tile height, unsplit decode grids of half the SMs):
# every C++ GPU test, the PyTorch op's GPU tests and the AOT example.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 260 scripts/gpu_hopper.sh build-device "$OUT/hopper" machine gpu_tests
timeout 200 scripts/gpu_production.sh build-device "$OUT/production" torch_tests example
cd "$OUT" && tar czf all.tgz hopper production && rm -rf hopper production results.tgz
