#!/usr/bin/env bash
# probe/call76: head dim 256 on the H100. Every C++ GPU test (GpuAttention.HeadDim256MatchesTheReference is
# new: both tensor-core mainloops at d=256, every wgmma feature, split decode, the defaults; the reference
# and the combine kernel changed for it, so every other GPU test runs again too), then compute-sanitizer
# (memcheck, racecheck, synccheck) on a small causal GQA shape with tails at d=256, for the problem-aware
# default there (a 64-row grid) and for the 128x80 config the default takes where tiles fill the SMs.
# Packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 300 scripts/gpu_hopper.sh build-device "$OUT/tests" machine gpu_tests
problem="b=1,hq=4,hkv=2,sq=137,skv=201,d=256,causal=1,dtype=bf16"
SANITIZE_PROBLEM="$problem" timeout 140 scripts/gpu_hopper.sh build-device "$OUT/sanitize_default" sanitize
SANITIZE_PROBLEM="$problem" SANITIZE_CONFIG="mma=wgmma,block_m=128,block_n=80,stages=2,overlap=on,pingpong=on,producer_regs=24,rescale=lazy" \
  timeout 140 scripts/gpu_hopper.sh build-device "$OUT/sanitize_128x80" sanitize
cd "$OUT" && tar czf all.tgz tests sanitize_default sanitize_128x80 && rm -rf tests sanitize_default sanitize_128x80 results.tgz
