#!/usr/bin/env bash
# probe/call62, on an H100: the 2048-key bound of the packed causal d=128 GQA default (971709d), held out:
# the default with pack_gqa=off and =on, 3 rounds, on six shapes not used before, one below the bound.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
HOPPER_PROBLEMS="b=2,hq=32,hkv=8,sq=3072,skv=3072,d=128,causal=1,dtype=fp16 b=1,hq=64,hkv=8,sq=2048,skv=2048,d=128,causal=1,dtype=bf16 b=4,hq=16,hkv=4,sq=2048,skv=2048,d=128,causal=1,dtype=fp16 b=1,hq=8,hkv=1,sq=4096,skv=4096,d=128,causal=1,dtype=bf16 b=2,hq=32,hkv=8,sq=1024,skv=2048,d=128,causal=1,dtype=bf16 b=4,hq=32,hkv=8,sq=1536,skv=1536,d=128,causal=1,dtype=fp16" \
HOPPER_CONFIGS="default,pack_gqa=off;default,pack_gqa=on" BENCH_ROUNDS=3 \
  timeout 300 scripts/gpu_hopper.sh build-device "$OUT/p" machine probe sdpa
cd "$OUT" && tar czf all.tgz p && rm -rf p results.tgz
