#!/usr/bin/env bash
# probe/call136: at the code of the short-chunk rules with their small-grid guard: every C++ GPU test (the
# wgmma test with four packed and six unpacked short-chunk defaults), compute-sanitizer memcheck, racecheck
# and synccheck on a packed causal short chunk's default (b12 hq32 hkv4 sq17 skv901 d64: 128-row tiles of 17
# queries x 8 heads, the second holding 8 rows, skip_idle), the AOT example and the PyTorch op's GPU tests.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
SANITIZE_PROBLEM="b=12,hq=32,hkv=4,sq=17,skv=901,d=64,causal=1,dtype=fp16" \
  timeout 330 scripts/gpu_hopper.sh build-device "$OUT/hopper" machine gpu_tests sanitize
timeout 250 scripts/gpu_production.sh build-device "$OUT/production" example torch_tests
cd "$OUT" && tar czf all.tgz hopper production && rm -rf hopper production results.tgz
