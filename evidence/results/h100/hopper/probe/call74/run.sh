#!/usr/bin/env bash
# probe/call74: call73's rule held out: thirteen causal d=64 shapes past 2048 keys used nowhere before, ten it
# moves to 192-row tiles with pingpong and three it leaves on 128 rows (192-row tiles fewer than four per SM:
# b1 hq32 s3072, b2 hq8 s6000; a KV-cache prefill, sq512 skv4096); the default, the 128-row config and the
# 192-row one by name, each problem timed with cuDNN's batch, 2 rounds. On the H100. Packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
problems="b=1,hq=16,hkv=16,sq=8192,skv=8192,d=64,causal=1,dtype=fp16 b=2,hq=16,hkv=4,sq=4096,skv=4096,d=64,causal=1,dtype=bf16 b=1,hq=32,hkv=32,sq=3072,skv=3072,d=64,causal=1,dtype=fp16 b=4,hq=32,hkv=8,sq=4096,skv=4096,d=64,causal=1,dtype=bf16 b=1,hq=64,hkv=8,sq=4096,skv=4096,d=64,causal=1,dtype=fp16 b=8,hq=16,hkv=16,sq=3000,skv=3000,d=64,causal=1,dtype=bf16 b=1,hq=24,hkv=8,sq=8192,skv=8192,d=64,causal=1,dtype=bf16 b=2,hq=32,hkv=32,sq=2560,skv=2560,d=64,causal=1,dtype=fp16 b=1,hq=32,hkv=32,sq=16384,skv=16384,d=64,causal=1,dtype=bf16 b=16,hq=16,hkv=16,sq=2304,skv=2304,d=64,causal=1,dtype=fp16 b=2,hq=8,hkv=8,sq=6000,skv=6000,d=64,causal=1,dtype=fp16 b=1,hq=40,hkv=8,sq=5000,skv=5000,d=64,causal=1,dtype=bf16 b=2,hq=32,hkv=8,sq=512,skv=4096,d=64,causal=1,dtype=bf16"
HOPPER_PROBLEMS="$problems" HOPPER_CONFIGS="default;default,block_m=128,pingpong=off;default,block_m=192,pingpong=on" BENCH_ROUNDS=2 \
  timeout 540 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz p && rm -rf p results.tgz
