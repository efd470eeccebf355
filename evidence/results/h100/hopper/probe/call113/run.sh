#!/usr/bin/env bash
# probe/call113: non-causal d=128 over short and middling K/V ranges with more 128-row tiles than SMs, where
# call112 found the default (128x160 dynamic, pingpong) below cuDNN on two shapes (b30 hq40 hkv20 s512 bf16
# 0.833x, b47 hq24 hkv6 s375 0.937x): 160-key blocks pad 512 keys to 640 and 375 to 480. The default against
# 128-key blocks (one and two Q buffers), 144-key blocks and 192x64 tiles, on those two and eight more,
# beside SDPA, two rounds, each side timed with cuDNN's batch.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
problems="b=30,hq=40,hkv=20,sq=512,skv=512,d=128,causal=0,dtype=bf16 b=47,hq=24,hkv=6,sq=375,skv=375,d=128,causal=0,dtype=fp16 b=16,hq=16,hkv=16,sq=256,skv=256,d=128,causal=0,dtype=fp16 b=8,hq=32,hkv=8,sq=640,skv=640,d=128,causal=0,dtype=bf16 b=12,hq=16,hkv=16,sq=768,skv=768,d=128,causal=0,dtype=fp16 b=6,hq=16,hkv=4,sq=1024,skv=1024,d=128,causal=0,dtype=bf16 b=4,hq=16,hkv=16,sq=1300,skv=1300,d=128,causal=0,dtype=fp16 b=2,hq=32,hkv=8,sq=2000,skv=2000,d=128,causal=0,dtype=bf16 b=16,hq=32,hkv=8,sq=256,skv=1500,d=128,causal=0,dtype=bf16 b=20,hq=16,hkv=16,sq=448,skv=448,d=128,causal=0,dtype=fp16"
HOPPER_PROBLEMS="$problems" BENCH_ROUNDS=2 \
HOPPER_CONFIGS="default;default,block_n=128,producer_regs=32;default,block_n=128,producer_regs=32,q_buffers=2;default,block_n=144;default,block_m=192,block_n=64" \
  timeout 480 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz p && rm -rf p results.tgz
