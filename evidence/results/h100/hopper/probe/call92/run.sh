#!/usr/bin/env bash
# probe/call92: before the d=256 default takes 128x64 dynamic with tma_half everywhere (call91), the two
# classes that rule would move unmeasured:
#   small/  small grids over long ranges (128-row tiles fewer than the SMs, 64-row halves more: the small-grid
#           rule keeps a 128-row plain grid and the default's block_n): 128x80 (the default now) against 64
#   wave/   grids just past one wave (call89's three d=256 shapes, 144-168 tiles): the default against
#           128x64 dynamic with tma_half
# cuDNN's batch, 2 rounds. Packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
small="b=1,hq=4,hkv=4,sq=4096,skv=4096,d=256,causal=0,dtype=fp16 b=1,hq=5,hkv=5,sq=3000,skv=3000,d=256,causal=1,dtype=bf16 b=2,hq=2,hkv=2,sq=4000,skv=4000,d=256,causal=0,dtype=bf16 b=1,hq=12,hkv=3,sq=1200,skv=1200,d=256,causal=0,dtype=fp16"
HOPPER_PROBLEMS="$small" HOPPER_CONFIGS="default;default,block_n=64" BENCH_ROUNDS=2 \
  timeout 150 scripts/gpu_hopper.sh build-device "$OUT/small" sdpa probe | grep -v "^[12] b="
wave="b=1,hq=16,hkv=8,sq=1100,skv=1100,d=256,causal=0,dtype=fp16 b=2,hq=8,hkv=8,sq=1100,skv=1100,d=256,causal=1,dtype=fp16 b=1,hq=20,hkv=20,sq=900,skv=900,d=256,causal=0,dtype=bf16"
HOPPER_PROBLEMS="$wave" HOPPER_CONFIGS="default;default,block_n=64,scheduler=dynamic,o_store=tma_half" BENCH_ROUNDS=2 \
  timeout 120 scripts/gpu_hopper.sh build-device "$OUT/wave" sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz small wave && rm -rf small wave results.tgz
