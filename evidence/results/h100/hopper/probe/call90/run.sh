#!/usr/bin/env bash
# probe/call90: o_store=tma_half, the rows out through an output tile of half the column blocks (a ring the
# rows pass through 64 columns at a time), so that at d=256 the Q buffer frees after the tile's last Q.K^T
# where the whole output tile does not fit beside 128 rows of Q and two 64-key slots. Four parts:
#   tests/      the C++ GPU tests of the attention kernels (GpuAttention.*: the new tma_half cases at d=128
#               and d=256, and every earlier case, since the epilogue was re-cut)
#   sanitize/   compute-sanitizer memcheck, racecheck, synccheck with tma_half at d=256 (two slots) on causal
#               GQA tails with more tiles than SMs (CTAs walk two)
#   d256/, d128/ the short-range d=256 default (o_store=threads, through the Q buffer) against the same with
#               o_store=tma_half, and two d=128 defaults (o_store=tma) against tma_half; cuDNN's batch, 2 rounds
#   production/ the AOT table re-exported and re-verified for the new kernel sources digest
# Packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
mkdir -p "$OUT/tests"
timeout 200 build-device/tests/evotune_tests --gtest_color=no --gtest_filter='GpuAttention.*' >"$OUT/tests/gpu_attention.txt" 2>&1
echo "gpu attention tests: exit $?"; grep -E "^\[  (PASSED|FAILED) |^\[  FAILED|Failure" "$OUT/tests/gpu_attention.txt" | head -20
d256="b=8,hq=16,hkv=16,sq=1024,skv=1024,d=256,causal=1,dtype=fp16 b=16,hq=8,hkv=8,sq=512,skv=512,d=256,causal=0,dtype=fp16 b=16,hq=24,hkv=6,sq=766,skv=766,d=256,causal=1,dtype=fp16 b=8,hq=24,hkv=3,sq=348,skv=348,d=256,causal=1,dtype=fp16 b=32,hq=8,hkv=4,sq=768,skv=768,d=256,causal=1,dtype=fp16 b=4,hq=32,hkv=8,sq=1280,skv=1280,d=256,causal=1,dtype=bf16 b=32,hq=8,hkv=8,sq=384,skv=384,d=256,causal=0,dtype=bf16 b=2,hq=32,hkv=16,sq=1536,skv=1536,d=256,causal=1,dtype=bf16 b=4,hq=16,hkv=16,sq=2048,skv=2048,d=256,causal=1,dtype=bf16 b=8,hq=16,hkv=16,sq=768,skv=768,d=256,causal=0,dtype=bf16"
HOPPER_PROBLEMS="$d256" HOPPER_CONFIGS="default;default,o_store=tma_half" BENCH_ROUNDS=2 \
  timeout 200 scripts/gpu_hopper.sh build-device "$OUT/d256" sdpa probe | grep -v "^[12] b="
w="mma=wgmma,block_m=128,stages=2,overlap=on,pingpong=on,producer_regs=24,scheduler=dynamic,o_store=tma_half"
SANITIZE_PROBLEM="b=2,hq=32,hkv=8,sq=300,skv=301,d=256,causal=1,dtype=bf16" SANITIZE_CONFIG="$w,block_n=64,rescale=lazy" \
  timeout 150 scripts/gpu_hopper.sh build-device "$OUT/sanitize" sanitize
timeout 120 scripts/gpu_production.sh build-device "$OUT/production" export
d128="b=4,hq=16,hkv=16,sq=4096,skv=4096,d=128,causal=1,dtype=fp16 b=4,hq=16,hkv=16,sq=4096,skv=4096,d=128,causal=0,dtype=fp16"
HOPPER_PROBLEMS="$d128" HOPPER_CONFIGS="default;default,o_store=tma_half" BENCH_ROUNDS=2 \
  timeout 100 scripts/gpu_hopper.sh build-device "$OUT/d128" sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz tests sanitize d256 d128 production && \
  rm -rf tests sanitize d256 d128 production results.tgz
