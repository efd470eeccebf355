#!/usr/bin/env bash
# probe/call86: the small-grid rule as generalized after call85 (128-row tiles fewer than the SMs whose 64-row
# halves are more keep 128-row tiles at every head dim: a plain grid with both overlaps and pingpong): the new
# default against the 64-row config it replaces, on call85's shapes and on four shapes per head dim used
# nowhere before, d=128 and d=256; b1 hq8 s512 d256 (halves fit one wave) keeps the 64-row config. Each problem
# timed with cuDNN's batch, 2 rounds. Packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
new="b=1,hq=32,hkv=8,sq=512,skv=512,D,causal=0,dtype=bf16 b=2,hq=12,hkv=4,sq=640,skv=640,D,causal=1,dtype=fp16 b=1,hq=8,hkv=8,sq=2000,skv=2000,D,causal=1,dtype=bf16 b=3,hq=5,hkv=5,sq=1000,skv=1000,D,causal=0,dtype=fp16"
d128="b=1,hq=12,hkv=3,sq=1179,skv=1179,d=128,causal=0,dtype=bf16 b=2,hq=8,hkv=1,sq=687,skv=687,d=128,causal=0,dtype=bf16 b=2,hq=8,hkv=8,sq=1024,skv=3337,d=128,causal=0,dtype=bf16 b=1,hq=12,hkv=3,sq=1169,skv=1169,d=128,causal=1,dtype=bf16 ${new//D/d=128}"
HOPPER_PROBLEMS="$d128" HOPPER_CONFIGS="default;mma=wgmma,block_m=64,block_n=128,stages=3,overlap=on,rescale=lazy" BENCH_ROUNDS=2 \
  timeout 250 scripts/gpu_hopper.sh build-device "$OUT/d128" sdpa probe | grep -v "^[12] b="
d256="b=1,hq=12,hkv=3,sq=1179,skv=1179,d=256,causal=0,dtype=bf16 b=2,hq=8,hkv=1,sq=687,skv=687,d=256,causal=0,dtype=bf16 b=2,hq=8,hkv=8,sq=1024,skv=3337,d=256,causal=0,dtype=bf16 b=1,hq=12,hkv=3,sq=1169,skv=1169,d=256,causal=1,dtype=bf16 b=1,hq=8,hkv=8,sq=512,skv=512,d=256,causal=0,dtype=fp16 ${new//D/d=256}"
HOPPER_PROBLEMS="$d256" HOPPER_CONFIGS="default;mma=wgmma,block_m=64,block_n=64,stages=3,overlap=on,rescale=lazy" BENCH_ROUNDS=2 \
  timeout 250 scripts/gpu_hopper.sh build-device "$OUT/d256" sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz d128 d256 && rm -rf d128 d256 results.tgz
