#!/usr/bin/env bash
# probe/call78: d=256 over short K/V ranges, where call77 found the 128x80 grid default below cuDNN (b8 hq16
# s1024 causal: 0.955x; 128x64 with the dynamic scheduler 0.986x). Causal shapes of 512-2048 keys and three
# non-causal ones: the default against 64-key blocks with the dynamic scheduler (with and without pingpong,
# and without overlap), 64-key blocks on the grid without pingpong, and one consumer warpgroup of 64 rows
# (three 64-key stages on the grid; two with the dynamic scheduler). Each problem timed with cuDNN's batch,
# 2 rounds. Packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
causal="b=8,hq=16,hkv=16,sq=1024,skv=1024,d=256,causal=1,dtype=fp16 b=4,hq=16,hkv=16,sq=2048,skv=2048,d=256,causal=1,dtype=bf16 b=16,hq=8,hkv=8,sq=512,skv=512,d=256,causal=1,dtype=fp16 b=2,hq=32,hkv=16,sq=1536,skv=1536,d=256,causal=1,dtype=bf16 b=1,hq=16,hkv=8,sq=2048,skv=2048,d=256,causal=1,dtype=fp16 b=32,hq=8,hkv=4,sq=768,skv=768,d=256,causal=1,dtype=fp16"
one="mma=wgmma,block_m=64,block_n=64,overlap=on"
configs="default;default,block_n=64,scheduler=dynamic;default,block_n=64,scheduler=dynamic,pingpong=off;default,block_n=64,scheduler=dynamic,overlap=off;default,block_n=64,pingpong=off;$one,stages=3;$one,stages=2,scheduler=dynamic"
HOPPER_PROBLEMS="$causal" HOPPER_CONFIGS="$configs" BENCH_ROUNDS=2 \
  timeout 330 scripts/gpu_hopper.sh build-device "$OUT/causal" sdpa probe | grep -v "^[12] b="
noncausal="b=16,hq=8,hkv=8,sq=512,skv=512,d=256,causal=0,dtype=fp16 b=8,hq=16,hkv=16,sq=768,skv=768,d=256,causal=0,dtype=bf16 b=4,hq=8,hkv=2,sq=1024,skv=1024,d=256,causal=0,dtype=fp16"
configs="default;default,block_n=64,scheduler=dynamic;default,block_n=64;$one,stages=3;$one,stages=2,scheduler=dynamic"
HOPPER_PROBLEMS="$noncausal" HOPPER_CONFIGS="$configs" BENCH_ROUNDS=2 \
  timeout 150 scripts/gpu_hopper.sh build-device "$OUT/noncausal" sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz causal noncausal && rm -rf causal noncausal results.tgz
