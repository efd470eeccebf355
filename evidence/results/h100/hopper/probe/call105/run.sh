#!/usr/bin/env bash
# probe/call105: the session's final code (o_store=tma_half, the d=256 defaults, the 192-row d=128 rule, the
# plain grids' TMA store, the 64-row small grids' too).
# Every C++ GPU test
# (the tma_half cases, the d=256 and d=128 defaults, GpuAot / GpuExport against the header of call90),
# the tuned_attention example (the AOT header with no NVRTC loaded), and the PyTorch op's GPU tests (d=256
# through JIT takes the new default). Packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 330 scripts/gpu_hopper.sh build-device "$OUT/hopper" machine gpu_tests
timeout 250 scripts/gpu_production.sh build-device "$OUT/production" example torch_tests
cd "$OUT" && tar czf all.tgz hopper production && rm -rf hopper production results.tgz
