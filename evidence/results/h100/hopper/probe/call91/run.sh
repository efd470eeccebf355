#!/usr/bin/env bash
# probe/call91: where o_store=tma_half belongs at d=256. Three parts:
#   tests/  GpuAttention.HeadDim256MatchesTheReference (its persistent packed-GQA tma_half case, too small in
#           call90, replaced) and the AOT tests against the re-exported examples/tuned_attention.h
#   long/   ranges longer than the short-range rule's (mean keys per tile > 1024 causal, > 768 non-causal),
#           where the default is FlashAttention-3's 128x80 grid: it against 128x64 dynamic with tma_half (does
#           the short-range config now win there too?)
#   short/  six short-range shapes used nowhere before (chosen before this call): the default (rows through
#           the Q buffer) against the same with tma_half
# cuDNN's batch, 2 rounds each. Packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
mkdir -p "$OUT/tests"
timeout 150 build-device/tests/evotune_tests --gtest_color=no \
  --gtest_filter='GpuAttention.HeadDim256MatchesTheReference:GpuAot*:GpuExport*' >"$OUT/tests/gpu_tests.txt" 2>&1
echo "gpu tests: exit $?"; grep -E "^\[  (PASSED|FAILED) |^\[  FAILED|Failure" "$OUT/tests/gpu_tests.txt" | head -20
long="b=4,hq=16,hkv=16,sq=4096,skv=4096,d=256,causal=0,dtype=fp16 b=4,hq=16,hkv=16,sq=4096,skv=4096,d=256,causal=1,dtype=fp16 b=1,hq=16,hkv=8,sq=8192,skv=8192,d=256,causal=1,dtype=bf16 b=2,hq=8,hkv=8,sq=2048,skv=2048,d=256,causal=0,dtype=bf16 b=2,hq=16,hkv=8,sq=3000,skv=3000,d=256,causal=1,dtype=bf16 b=6,hq=12,hkv=12,sq=777,skv=777,d=256,causal=0,dtype=fp16 b=1,hq=24,hkv=6,sq=4213,skv=4213,d=256,causal=0,dtype=bf16 b=1,hq=32,hkv=16,sq=3112,skv=3112,d=256,causal=0,dtype=bf16"
HOPPER_PROBLEMS="$long" HOPPER_CONFIGS="default;default,block_n=64,scheduler=dynamic,o_store=tma_half" BENCH_ROUNDS=2 \
  timeout 250 scripts/gpu_hopper.sh build-device "$OUT/long" sdpa probe | grep -v "^[12] b="
short="b=12,hq=16,hkv=4,sq=700,skv=700,d=256,causal=1,dtype=bf16 b=24,hq=8,hkv=8,sq=450,skv=450,d=256,causal=0,dtype=fp16 b=6,hq=20,hkv=5,sq=900,skv=900,d=256,causal=1,dtype=fp16 b=3,hq=40,hkv=8,sq=1000,skv=1000,d=256,causal=1,dtype=bf16 b=64,hq=4,hkv=4,sq=256,skv=256,d=256,causal=1,dtype=fp16 b=5,hq=16,hkv=2,sq=600,skv=600,d=256,causal=0,dtype=bf16"
HOPPER_PROBLEMS="$short" HOPPER_CONFIGS="default;default,o_store=tma_half" BENCH_ROUNDS=2 \
  timeout 150 scripts/gpu_hopper.sh build-device "$OUT/short" sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz tests long short && rm -rf tests long short results.tgz
