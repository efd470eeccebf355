#!/usr/bin/env bash
# probe/call97: call96 found the new d=256 default (128x64 dynamic, tma_half) 0.6-2.0% slower than call84's
# 128x80 grid on six long-range shapes (across calls, cuDNN's times level), after call91 had it level or
# behind on three of eight long ranges. Here both side by side in one call, 3 rounds, on fourteen shapes whose
# tiles' queries see 1775-5070 keys on average: is there a range bound past which the 128x80 grid should stay?
# cuDNN's batch. Packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
long="b=4,hq=16,hkv=16,sq=4096,skv=4096,d=256,causal=0,dtype=fp16 b=1,hq=8,hkv=8,sq=8925,skv=8925,d=256,causal=1,dtype=bf16 b=1,hq=8,hkv=8,sq=8555,skv=8555,d=256,causal=1,dtype=bf16 b=4,hq=8,hkv=1,sq=4549,skv=4549,d=256,causal=0,dtype=bf16 b=1,hq=24,hkv=3,sq=5070,skv=5070,d=256,causal=0,dtype=fp16 b=1,hq=32,hkv=16,sq=3112,skv=3112,d=256,causal=0,dtype=bf16 b=1,hq=24,hkv=6,sq=4213,skv=4213,d=256,causal=0,dtype=bf16 b=1,hq=16,hkv=8,sq=8192,skv=8192,d=256,causal=1,dtype=bf16 b=2,hq=16,hkv=16,sq=6394,skv=6394,d=256,causal=1,dtype=bf16 b=8,hq=8,hkv=8,sq=4699,skv=4699,d=256,causal=0,dtype=bf16 b=4,hq=16,hkv=16,sq=4096,skv=4096,d=256,causal=1,dtype=fp16 b=2,hq=8,hkv=1,sq=3550,skv=3550,d=256,causal=1,dtype=bf16 b=2,hq=8,hkv=8,sq=2048,skv=2048,d=256,causal=0,dtype=bf16 b=1,hq=8,hkv=1,sq=2415,skv=2415,d=256,causal=0,dtype=bf16"
HOPPER_PROBLEMS="$long" HOPPER_CONFIGS="default;default,block_n=80,scheduler=grid,o_store=threads" BENCH_ROUNDS=3 \
  timeout 450 scripts/gpu_hopper.sh build-device "$OUT/long" sdpa probe | grep -v "^[123] b="
cd "$OUT" && tar czf all.tgz long && rm -rf long results.tgz
