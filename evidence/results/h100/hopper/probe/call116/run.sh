#!/usr/bin/env bash
# probe/call116: causal d=64 past 2048 keys, where the default takes 192-row tiles with pingpong (v13's rule)
# and skip_idle: does a head's last, partly empty tile still cost enough that 128-row tiles lead where its
# padding weighs most (few tiles per head)? b2 hq32 s2560 (0.987x cuDNN, call110), call115's b1 hq40 s3669
# (1.019x) and seven shapes used nowhere before, of padded-work ratios 192/128 from 1.05 to 1.14: the default
# against 128-row tiles without pingpong (the causal d=64 config before the rule) with skip_idle off and on,
# beside SDPA, two rounds, each side timed with cuDNN's batch.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
problems="b=2,hq=32,hkv=32,sq=2560,skv=2560,d=64,causal=1,dtype=fp16 b=1,hq=40,hkv=40,sq=3669,skv=3669,d=64,causal=1,dtype=fp16 b=2,hq=32,hkv=32,sq=2500,skv=2500,d=64,causal=1,dtype=fp16 b=4,hq=16,hkv=4,sq=2900,skv=2900,d=64,causal=1,dtype=bf16 b=2,hq=24,hkv=24,sq=3300,skv=3300,d=64,causal=1,dtype=fp16 b=3,hq=16,hkv=8,sq=2560,skv=2560,d=64,causal=1,dtype=bf16 b=2,hq=24,hkv=24,sq=3100,skv=3100,d=64,causal=1,dtype=fp16 b=4,hq=16,hkv=16,sq=2200,skv=2200,d=64,causal=1,dtype=bf16 b=1,hq=48,hkv=8,sq=4096,skv=4096,d=64,causal=1,dtype=bf16"
HOPPER_PROBLEMS="$problems" BENCH_ROUNDS=2 \
HOPPER_CONFIGS="default;default,block_m=128,pingpong=off,skip_idle=off;default,block_m=128,pingpong=off,skip_idle=on" \
  timeout 400 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz p && rm -rf p results.tgz
