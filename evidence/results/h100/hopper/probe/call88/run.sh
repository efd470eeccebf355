#!/usr/bin/env bash
# probe/call88: (as call83, after the small-grid rule generalized at d=128 and d=256) the GPU tests at this session's final code on the H100: every C++ GPU test (d=256 among them,
# and GpuAot / GpuExport with the re-exported examples/tuned_attention.h), the tuned_attention example (the
# AOT header with no NVRTC loaded), and the PyTorch op's GPU tests (d=256 through JIT is new). Packed into
# $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 330 scripts/gpu_hopper.sh build-device "$OUT/hopper" machine gpu_tests
timeout 250 scripts/gpu_production.sh build-device "$OUT/production" example torch_tests
cd "$OUT" && tar czf all.tgz hopper production && rm -rf hopper production results.tgz
