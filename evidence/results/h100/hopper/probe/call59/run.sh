#!/usr/bin/env bash
# probe/call59: the one-consumer 64x64 config at three CTAs per SM instead of four, where the four-CTA
# slots (528) take the tiles in a round and a fraction (b16 hq8 s384: 768 tiles, 1.45 rounds; three CTAs:
# 396 slots, 1.94 rounds), on the two held-out shapes still below cuDNN and a few alike; grid and dynamic,
# 2 rounds, SDPA beside. On the H100. Packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
one="mma=wgmma,block_m=64,block_n=64,warps=8,stages=2,overlap=off,pingpong=off,producer_regs=24,q_buffers=1,o_store=tma,rescale=lazy"
HOPPER_PROBLEMS="b=16,hq=8,hkv=8,sq=384,skv=384,d=64,causal=0,dtype=fp16 b=6,hq=12,hkv=12,sq=640,skv=640,d=64,causal=0,dtype=fp16 b=12,hq=8,hkv=8,sq=512,skv=512,d=64,causal=0,dtype=bf16 b=3,hq=16,hkv=16,sq=768,skv=768,d=64,causal=0,dtype=fp16 b=4,hq=32,hkv=8,sq=640,skv=640,d=64,causal=0,dtype=fp16 b=64,hq=8,hkv=8,sq=256,skv=256,d=64,causal=0,dtype=fp16" \
HOPPER_CONFIGS="default;$one,min_ctas=4,scheduler=grid;$one,min_ctas=3,scheduler=grid;$one,min_ctas=3,scheduler=dynamic" BENCH_ROUNDS=2 \
  timeout 300 scripts/gpu_hopper.sh build-device "$OUT/p" machine probe sdpa
cd "$OUT" && tar czf all.tgz p && rm -rf p results.tgz
