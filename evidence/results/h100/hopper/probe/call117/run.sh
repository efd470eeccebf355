#!/usr/bin/env bash
# probe/call117: call116 found 128-row causal d=64 tiles without pingpong 0.8-3.9% faster with skip_idle=on
# on all nine shapes, also where no warpgroup of any tile idles (s4096, s2900, s3300, s3669: rows % 128 > 64).
# v21 had measured the form costing 0.6-1.4% on pingpong and packed tiles. So: skip_idle off against on on
# the causal defaults without pingpong, unpacked d=128 (the listed b4 hq16 s4096 among them) and 128-row d=64,
# with two packed d=128 (the listed GQA rows) as the control, beside SDPA, three rounds, each side timed with
# cuDNN's batch.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
problems="b=4,hq=16,hkv=16,sq=4096,skv=4096,d=128,causal=1,dtype=fp16 b=8,hq=16,hkv=16,sq=2048,skv=2048,d=128,causal=1,dtype=bf16 b=1,hq=32,hkv=32,sq=8192,skv=8192,d=128,causal=1,dtype=fp16 b=16,hq=12,hkv=12,sq=1024,skv=1024,d=128,causal=1,dtype=fp16 b=4,hq=32,hkv=8,sq=1536,skv=1536,d=128,causal=1,dtype=bf16 b=1,hq=8,hkv=8,sq=4096,skv=4096,d=64,causal=1,dtype=fp16 b=2,hq=8,hkv=8,sq=2500,skv=2500,d=64,causal=1,dtype=fp16 b=4,hq=8,hkv=2,sq=2300,skv=2300,d=64,causal=1,dtype=bf16 b=1,hq=32,hkv=8,sq=4096,skv=4096,d=128,causal=1,dtype=bf16 b=2,hq=32,hkv=4,sq=8192,skv=8192,d=128,causal=1,dtype=bf16"
HOPPER_PROBLEMS="$problems" BENCH_ROUNDS=3 HOPPER_CONFIGS="default,skip_idle=off;default,skip_idle=on" \
  timeout 400 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[123] b="
cd "$OUT" && tar czf all.tgz p && rm -rf p results.tgz
