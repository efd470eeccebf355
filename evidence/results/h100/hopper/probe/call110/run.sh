#!/usr/bin/env bash
# probe/call110: skip_idle beside SDPA on b2 hq32 s2560 d64 causal (0.976x cuDNN in probe/call74, the one
# shape of that call below cuDNN), the two committed held-out rows whose defaults it changes (b2 hq16 s3000
# d128 causal; b2 hq16 hkv8 s3000 d256 causal bf16) and two shapes used nowhere before; default against
# default,skip_idle=off, each timed with cuDNN's batch, two rounds.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
problems="b=2,hq=32,hkv=32,sq=2560,skv=2560,d=64,causal=1,dtype=fp16 b=2,hq=16,hkv=16,sq=3000,skv=3000,d=128,causal=1,dtype=fp16 b=2,hq=16,hkv=8,sq=3000,skv=3000,d=256,causal=1,dtype=bf16 b=1,hq=48,hkv=8,sq=5000,skv=5000,d=64,causal=1,dtype=bf16 b=4,hq=32,hkv=8,sq=1000,skv=3000,d=128,causal=1,dtype=fp16"
HOPPER_PROBLEMS="$problems" HOPPER_CONFIGS="default;default,skip_idle=off" BENCH_ROUNDS=2 \
  timeout 200 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz p && rm -rf p results.tgz
