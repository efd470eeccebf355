#!/usr/bin/env bash
# probe/call159: what the space has for call158's short d=256 causal shape below cuDNN (b25 hq64 s256, 0.994x)
# and three of its kind (two picked by hand, unused before; b27 hq16 hkv8 s256 from call158): the default
# (128x64 tiles, dynamic, tma_half) against sections, no pingpong, no overlap, and FlashAttention-3's 128x80
# grid; two rounds beside SDPA, each side timed with cuDNN's batch. Exploration, no rule.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
P="b=25,hq=64,hkv=64,sq=256,skv=256,d=256,causal=1,dtype=bf16 b=27,hq=16,hkv=8,sq=256,skv=256,d=256,causal=1,dtype=fp16 b=10,hq=32,hkv=8,sq=320,skv=320,d=256,causal=1,dtype=bf16 b=16,hq=24,hkv=24,sq=200,skv=200,d=256,causal=1,dtype=fp16"
HOPPER_PROBLEMS="$P" timeout 60 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa | tail -2
HOPPER_PROBLEMS="$P" BENCH_ROUNDS=2 HOPPER_CONFIGS="default;default,tile_order=sections;default,pingpong=off;default,overlap=off;default,block_n=80,scheduler=grid,o_store=threads" \
  timeout 150 scripts/gpu_hopper.sh build-device "$OUT/p" probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz p && rm -rf p results.tgz
