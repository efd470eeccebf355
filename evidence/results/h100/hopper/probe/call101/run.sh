#!/usr/bin/env bash
# probe/call101: the plain-grid defaults store their rows through the Q buffer (o_store=threads: one tile per
# CTA, so an early Q release buys nothing), but the output tile's TMA store was 1-3.5% faster than the
# threads' stores in v8 on every config. Here the grids of this session and the last: the 192-row d=128 wave
# grids and the 128-row d=128 small grids against the same with o_store=tma, the 128x64 d=256 small grids
# against tma_half (the whole tile does not fit). cuDNN's batch, 2 rounds. Packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
d128="b=1,hq=36,hkv=4,sq=512,skv=512,d=128,causal=0,dtype=fp16 b=5,hq=8,hkv=2,sq=512,skv=512,d=128,causal=0,dtype=fp16 b=1,hq=20,hkv=20,sq=1000,skv=1000,d=128,causal=0,dtype=fp16 b=1,hq=32,hkv=8,sq=512,skv=512,d=128,causal=0,dtype=bf16 b=1,hq=12,hkv=3,sq=1179,skv=1179,d=128,causal=0,dtype=bf16 b=2,hq=12,hkv=4,sq=640,skv=701,d=128,causal=1,dtype=fp16"
HOPPER_PROBLEMS="$d128" HOPPER_CONFIGS="default;default,o_store=tma" BENCH_ROUNDS=2 \
  timeout 150 scripts/gpu_hopper.sh build-device "$OUT/d128" sdpa probe | grep -v "^[12] b="
d256="b=1,hq=12,hkv=3,sq=1169,skv=1169,d=256,causal=1,dtype=bf16 b=2,hq=8,hkv=1,sq=687,skv=687,d=256,causal=0,dtype=bf16 b=1,hq=16,hkv=4,sq=900,skv=900,d=256,causal=1,dtype=bf16"
HOPPER_PROBLEMS="$d256" HOPPER_CONFIGS="default;default,o_store=tma_half" BENCH_ROUNDS=2 \
  timeout 100 scripts/gpu_hopper.sh build-device "$OUT/d256" sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz d128 d256 && rm -rf d128 d256 results.tgz
