#!/usr/bin/env bash
# probe/call129: packed GQA on causal defaults, which with_packed_gqa leaves unpacked (causal d=128 packs from
# 2048 keys): ten causal GQA shapes drawn for it (draw_shapes.py), the default against the same default
# packed, two rounds beside SDPA, each side timed with cuDNN's batch.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
HOPPER_PROBLEMS="b=9,hq=24,hkv=12,sq=448,skv=448,d=64,causal=1,dtype=fp16 b=15,hq=16,hkv=4,sq=3584,skv=3584,d=64,causal=1,dtype=fp16 b=21,hq=28,hkv=14,sq=2781,skv=2781,d=64,causal=1,dtype=bf16 b=14,hq=28,hkv=7,sq=3584,skv=3584,d=64,causal=1,dtype=fp16 b=42,hq=24,hkv=6,sq=353,skv=353,d=64,causal=1,dtype=fp16 b=47,hq=40,hkv=10,sq=916,skv=916,d=128,causal=1,dtype=bf16 b=49,hq=32,hkv=16,sq=448,skv=448,d=128,causal=1,dtype=bf16 b=35,hq=16,hkv=8,sq=740,skv=740,d=128,causal=1,dtype=bf16 b=37,hq=24,hkv=3,sq=857,skv=857,d=128,causal=1,dtype=bf16 b=57,hq=12,hkv=3,sq=1111,skv=1111,d=128,causal=1,dtype=fp16" \
  BENCH_ROUNDS=2 HOPPER_CONFIGS="default;default,pack_gqa=on" \
  timeout 300 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz p && rm -rf p results.tgz
