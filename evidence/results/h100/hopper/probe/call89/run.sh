#!/usr/bin/env bash
# probe/call89: grids just past one wave at d=128 and d=256 (144-168 128-row tiles on 132 SMs: the busiest SMs
# run two tiles), a class no rule looks at: the default against it split in two (twice the CTAs, half the K/V
# range each) and against 64-row tiles on a grid. Each problem timed with cuDNN's batch, 2 rounds. Packed into
# $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
d128="b=1,hq=32,hkv=8,sq=600,skv=600,d=128,causal=0,dtype=bf16 b=2,hq=12,hkv=12,sq=800,skv=800,d=128,causal=1,dtype=fp16 b=1,hq=36,hkv=4,sq=512,skv=512,d=128,causal=0,dtype=fp16"
HOPPER_PROBLEMS="$d128" HOPPER_CONFIGS="default;default,splits=2;mma=wgmma,block_m=64,block_n=128,stages=3,overlap=on,rescale=lazy" BENCH_ROUNDS=2 \
  timeout 200 scripts/gpu_hopper.sh build-device "$OUT/d128" sdpa probe | grep -v "^[12] b="
d256="b=1,hq=16,hkv=8,sq=1100,skv=1100,d=256,causal=0,dtype=fp16 b=2,hq=8,hkv=8,sq=1100,skv=1100,d=256,causal=1,dtype=fp16 b=1,hq=20,hkv=20,sq=900,skv=900,d=256,causal=0,dtype=bf16"
HOPPER_PROBLEMS="$d256" HOPPER_CONFIGS="default;default,splits=2;mma=wgmma,block_m=64,block_n=64,stages=3,overlap=on,rescale=lazy" BENCH_ROUNDS=2 \
  timeout 200 scripts/gpu_hopper.sh build-device "$OUT/d256" sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz d128 d256 && rm -rf d128 d256 results.tgz
