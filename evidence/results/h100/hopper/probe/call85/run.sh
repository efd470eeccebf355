#!/usr/bin/env bash
# probe/call85: the small-grid rule at d=256 and d=128. call84's random d=256 shapes were furthest below the
# libraries where 128-row tiles are fewer than the SMs and the default takes 64-row tiles of one consumer
# warpgroup (0.84-0.88x cuDNN): at d=256 (and d=128) such a CTA fills an SM's shared memory, so 64-row tiles
# beyond the SM count run in two waves. Those shapes (and b1 hq8 s512, whose 64-row tiles fit one wave),
# the default against 128-row grids of both overlaps; then d=128 shapes of the same tile counts. Each problem
# timed with cuDNN's batch, 2 rounds. Packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
B="mma=wgmma,block_m=128,stages=2,overlap=on,pingpong=on,producer_regs=24,rescale=lazy"
d256="b=1,hq=12,hkv=3,sq=1179,skv=1179,d=256,causal=0,dtype=bf16 b=2,hq=8,hkv=1,sq=687,skv=687,d=256,causal=0,dtype=bf16 b=2,hq=8,hkv=8,sq=1024,skv=3337,d=256,causal=0,dtype=bf16 b=1,hq=12,hkv=3,sq=1169,skv=1169,d=256,causal=1,dtype=bf16 b=1,hq=8,hkv=8,sq=512,skv=512,d=256,causal=0,dtype=fp16"
HOPPER_PROBLEMS="$d256" HOPPER_CONFIGS="default;$B,block_n=80;$B,block_n=64" BENCH_ROUNDS=2 \
  timeout 250 scripts/gpu_hopper.sh build-device "$OUT/d256" sdpa probe | grep -v "^[12] b="
d128="b=1,hq=12,hkv=3,sq=1179,skv=1179,d=128,causal=0,dtype=bf16 b=2,hq=8,hkv=1,sq=687,skv=687,d=128,causal=0,dtype=bf16 b=2,hq=8,hkv=8,sq=1024,skv=3337,d=128,causal=0,dtype=bf16 b=1,hq=12,hkv=3,sq=1169,skv=1169,d=128,causal=1,dtype=bf16"
HOPPER_PROBLEMS="$d128" HOPPER_CONFIGS="default;$B,block_n=128;$B,block_n=176" BENCH_ROUNDS=2 \
  timeout 200 scripts/gpu_hopper.sh build-device "$OUT/d128" sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz d256 d128 && rm -rf d256 d128 results.tgz
