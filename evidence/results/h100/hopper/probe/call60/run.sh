#!/usr/bin/env bash
# probe/call60: packed GQA for the d=128 wgmma defaults. The searches of both listed causal GQA rows picked
# pack_gqa=on in three full runs (b1 hq32 hkv8 s4096 bf16: 212-216 us against the default's 235-237; b2
# hq32 hkv4 s8192: 1564-1594 against 1621-1704); here the default and the default with pack_gqa=on, 3 rounds,
# on d=128 GQA shapes not used so far (causal and not, groups 2 to 8), SDPA beside. On the H100.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
HOPPER_PROBLEMS="b=1,hq=32,hkv=8,sq=8192,skv=8192,d=128,causal=1,dtype=bf16 b=2,hq=32,hkv=8,sq=2048,skv=2048,d=128,causal=1,dtype=fp16 b=4,hq=32,hkv=8,sq=4096,skv=4096,d=128,causal=1,dtype=bf16 b=1,hq=64,hkv=8,sq=4096,skv=4096,d=128,causal=1,dtype=bf16 b=2,hq=16,hkv=4,sq=4096,skv=4096,d=128,causal=1,dtype=fp16 b=1,hq=28,hkv=4,sq=3000,skv=3000,d=128,causal=1,dtype=bf16 b=2,hq=16,hkv=8,sq=4096,skv=4096,d=128,causal=1,dtype=fp16 b=1,hq=32,hkv=8,sq=4096,skv=4096,d=128,causal=0,dtype=bf16 b=2,hq=32,hkv=8,sq=2048,skv=2048,d=128,causal=0,dtype=fp16" \
HOPPER_CONFIGS="default;default,pack_gqa=on" BENCH_ROUNDS=3 \
  timeout 330 scripts/gpu_hopper.sh build-device "$OUT/p" machine probe sdpa
cd "$OUT" && tar czf all.tgz p && rm -rf p results.tgz
