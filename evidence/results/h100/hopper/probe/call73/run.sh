#!/usr/bin/env bash
# probe/call73: long causal d=64 (2400-6300 keys), the class call72 found 0.3-2.9% below cuDNN with the
# 128x128 dynamic default: that default against itself with pingpong, a second Q buffer, three stages,
# 160- or 192-key blocks, and 192-row tiles (with and without pingpong). Each problem timed with cuDNN's
# batch, 2 rounds. On the H100. Packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
problems="b=2,hq=64,hkv=32,sq=4635,skv=4635,d=64,causal=1,dtype=fp16 b=2,hq=24,hkv=24,sq=6042,skv=6042,d=64,causal=1,dtype=fp16 b=2,hq=16,hkv=8,sq=6268,skv=6268,d=64,causal=1,dtype=fp16 b=2,hq=16,hkv=16,sq=4036,skv=4036,d=64,causal=1,dtype=fp16 b=4,hq=40,hkv=40,sq=3667,skv=3667,d=64,causal=1,dtype=bf16 b=8,hq=24,hkv=24,sq=2416,skv=2416,d=64,causal=1,dtype=fp16"
configs="default;default,pingpong=on;default,q_buffers=2;default,stages=3;default,block_n=160;default,block_n=192;default,block_m=192;default,block_m=192,pingpong=on"
HOPPER_PROBLEMS="$problems" HOPPER_CONFIGS="$configs" BENCH_ROUNDS=2 \
  timeout 540 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz p && rm -rf p results.tgz
