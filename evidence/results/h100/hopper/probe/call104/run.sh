#!/usr/bin/env bash
# probe/call104: the one plain-grid default v20 left on o_store=threads, the 64-row small grid (one consumer
# warpgroup, three 128-key slots; where 128-row tiles are fewer than the SMs and 64-row ones no more), against
# the same with o_store=tma, on eight shapes at d=64 and d=128 (the listed b1 hq8 s512 d64 among them; at
# d=256 the output tile does not fit there). cuDNN's batch, 2 rounds. Packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
p="b=1,hq=8,hkv=8,sq=512,skv=512,d=64,causal=0,dtype=fp16 b=1,hq=4,hkv=4,sq=1500,skv=1500,d=64,causal=1,dtype=bf16 b=2,hq=4,hkv=4,sq=700,skv=700,d=128,causal=0,dtype=fp16 b=1,hq=8,hkv=2,sq=900,skv=900,d=128,causal=1,dtype=bf16 b=1,hq=2,hkv=2,sq=4000,skv=4000,d=128,causal=0,dtype=fp16 b=3,hq=4,hkv=2,sq=300,skv=300,d=64,causal=1,dtype=fp16 b=1,hq=6,hkv=6,sq=1300,skv=1300,d=64,causal=0,dtype=bf16 b=1,hq=3,hkv=3,sq=2000,skv=2000,d=128,causal=1,dtype=fp16"
HOPPER_PROBLEMS="$p" HOPPER_CONFIGS="default;default,o_store=tma" BENCH_ROUNDS=2 \
  timeout 200 scripts/gpu_hopper.sh build-device "$OUT/grid64" sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz grid64 && rm -rf grid64 results.tgz
