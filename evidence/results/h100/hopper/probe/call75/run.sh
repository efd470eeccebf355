#!/usr/bin/env bash
# probe/call75: (as call71, after the causal d=64 192-row rule) the final HEAD's GPU tests on the H100: every C++ GPU test (the timer's given batch, the
# search's workers with the batch in their protocol, the wgmma kernels with this session's defaults) and
# the PyTorch op's GPU tests (its fallback defaults follow the rules). Packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 400 scripts/gpu_hopper.sh build-device "$OUT/hopper" machine gpu_tests
timeout 300 scripts/gpu_production.sh build-device "$OUT/production" torch_tests
cd "$OUT" && tar czf all.tgz hopper production && rm -rf hopper production results.tgz
