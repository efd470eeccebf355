#!/usr/bin/env bash
# probe/call119: call116's 128-row lead over the 192-row causal d=64 default held only where the padded work
# of 192-row tiles over 128-row ones (rows x keys seen in 128-key blocks) is highest: 1.143, s2497-s2560. Its
# only higher value is 1.167, s2113-s2176 (none measured before): the default against 128-row tiles without
# pingpong, skip_idle off and on, on four shapes there and one more at 1.143, beside SDPA, two rounds, each
# side timed with cuDNN's batch.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
problems="b=2,hq=32,hkv=32,sq=2150,skv=2150,d=64,causal=1,dtype=fp16 b=4,hq=16,hkv=4,sq=2120,skv=2120,d=64,causal=1,dtype=bf16 b=1,hq=64,hkv=8,sq=2176,skv=2176,d=64,causal=1,dtype=bf16 b=6,hq=8,hkv=8,sq=2140,skv=2140,d=64,causal=1,dtype=fp16 b=8,hq=8,hkv=2,sq=2530,skv=2530,d=64,causal=1,dtype=bf16"
HOPPER_PROBLEMS="$problems" BENCH_ROUNDS=2 \
HOPPER_CONFIGS="default;default,block_m=128,pingpong=off,skip_idle=off;default,block_m=128,pingpong=off,skip_idle=on" \
  timeout 300 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz p && rm -rf p results.tgz
