#!/usr/bin/env bash
# probe/call120: causal d=64 from 2120 to 4096 keys, past the four-CTA config's causal bound (2048 keys, v12,
# from s2048 and s3072 measurements only): the default (192 rows with pingpong on all twelve) against
# 128-row tiles without pingpong with skip_idle on, and the four-CTA config (64x64 tiles, four CTAs of one
# consumer warpgroup per SM, a plain grid), on call119's five and seven of call116's, beside SDPA, two
# rounds, each side timed with cuDNN's batch.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
problems="b=4,hq=16,hkv=4,sq=2120,skv=2120,d=64,causal=1,dtype=bf16 b=6,hq=8,hkv=8,sq=2140,skv=2140,d=64,causal=1,dtype=fp16 b=2,hq=32,hkv=32,sq=2150,skv=2150,d=64,causal=1,dtype=fp16 b=1,hq=64,hkv=8,sq=2176,skv=2176,d=64,causal=1,dtype=bf16 b=4,hq=16,hkv=16,sq=2200,skv=2200,d=64,causal=1,dtype=bf16 b=2,hq=32,hkv=32,sq=2500,skv=2500,d=64,causal=1,dtype=fp16 b=8,hq=8,hkv=2,sq=2530,skv=2530,d=64,causal=1,dtype=bf16 b=2,hq=32,hkv=32,sq=2560,skv=2560,d=64,causal=1,dtype=fp16 b=4,hq=16,hkv=4,sq=2900,skv=2900,d=64,causal=1,dtype=bf16 b=2,hq=24,hkv=24,sq=3100,skv=3100,d=64,causal=1,dtype=fp16 b=2,hq=24,hkv=24,sq=3300,skv=3300,d=64,causal=1,dtype=fp16 b=1,hq=48,hkv=8,sq=4096,skv=4096,d=64,causal=1,dtype=bf16"
four="mma=wgmma,block_m=64,block_n=64,warps=8,stages=2,overlap=off,pingpong=off,producer_regs=24,min_ctas=4,scheduler=grid,q_buffers=1,o_store=tma,rescale=lazy"
HOPPER_PROBLEMS="$problems" BENCH_ROUNDS=2 \
HOPPER_CONFIGS="default;default,block_m=128,pingpong=off,skip_idle=on;$four" \
  timeout 400 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz p && rm -rf p results.tgz
