#!/usr/bin/env bash
# probe/call170, at the d=128 decode grids' stage rule (af237f3; this session's final code): compute-sanitizer
# (memcheck, racecheck, synccheck) on the default's small causal GQA tail shape (wgmma) and on a d=128 decode
# shape the rule moves to two stages (the mma.sync grid, packed GQA, odd keys); every C++ GPU test; the
# PyTorch op's GPU tests.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 60 scripts/gpu_hopper.sh build-device "$OUT/sanitize" machine sanitize
SANITIZE_PROBLEM="b=23,hq=16,hkv=8,sq=2,skv=1799,d=128,causal=1,dtype=bf16" \
  timeout 60 scripts/gpu_hopper.sh build-device "$OUT/sanitize_decode" sanitize
timeout 230 scripts/gpu_hopper.sh build-device "$OUT/tests" gpu_tests
timeout 70 scripts/gpu_production.sh build-device "$OUT/production" torch_tests | tail -4
cd "$OUT" && tar czf all.tgz sanitize sanitize_decode tests production && rm -rf sanitize sanitize_decode tests production results.tgz
