#!/usr/bin/env bash
# probe/call96: call84 again at the final code of o_store=tma_half: the problem-aware default at d=256 on the
# 24 random shapes of call84 (seed 20261127, drawn by ../call84/shapes.py beside
# that script: b 1-16, hq 8-32, groups 1-8, causal or not, 200-9000 keys, a sixth decode-like with 1-4
# queries, a sixth with 256-1024 queries against a longer cache, odd lengths) beside SDPA flash and cuDNN, each
# problem timed with cuDNN's batch, 2 rounds; no search. What the d=256 defaults give on shapes nobody chose.
# On the H100. Packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
problems="b=1,hq=32,hkv=16,sq=1802,skv=1802,d=256,causal=1,dtype=bf16 b=1,hq=12,hkv=3,sq=1179,skv=1179,d=256,causal=0,dtype=bf16 b=1,hq=8,hkv=8,sq=8925,skv=8925,d=256,causal=1,dtype=bf16 b=2,hq=8,hkv=1,sq=687,skv=687,d=256,causal=0,dtype=bf16 b=16,hq=12,hkv=6,sq=1,skv=7950,d=256,causal=1,dtype=fp16 b=1,hq=8,hkv=1,sq=2415,skv=2415,d=256,causal=0,dtype=bf16 b=1,hq=8,hkv=8,sq=8555,skv=8555,d=256,causal=1,dtype=bf16 b=1,hq=24,hkv=24,sq=4,skv=302,d=256,causal=1,dtype=bf16 b=1,hq=32,hkv=32,sq=872,skv=872,d=256,causal=0,dtype=bf16 b=2,hq=16,hkv=16,sq=6394,skv=6394,d=256,causal=1,dtype=bf16 b=2,hq=8,hkv=1,sq=3550,skv=3550,d=256,causal=1,dtype=bf16 b=1,hq=32,hkv=16,sq=3112,skv=3112,d=256,causal=0,dtype=bf16 b=2,hq=24,hkv=24,sq=1,skv=5711,d=256,causal=0,dtype=fp16 b=2,hq=8,hkv=8,sq=1024,skv=3337,d=256,causal=0,dtype=bf16 b=16,hq=12,hkv=6,sq=256,skv=931,d=256,causal=1,dtype=fp16 b=1,hq=24,hkv=24,sq=1024,skv=2952,d=256,causal=1,dtype=bf16 b=1,hq=24,hkv=6,sq=4213,skv=4213,d=256,causal=0,dtype=bf16 b=16,hq=16,hkv=2,sq=1,skv=8301,d=256,causal=1,dtype=fp16 b=16,hq=24,hkv=6,sq=766,skv=766,d=256,causal=1,dtype=fp16 b=8,hq=8,hkv=8,sq=4699,skv=4699,d=256,causal=0,dtype=bf16 b=1,hq=12,hkv=3,sq=1169,skv=1169,d=256,causal=1,dtype=bf16 b=4,hq=8,hkv=1,sq=4549,skv=4549,d=256,causal=0,dtype=bf16 b=1,hq=24,hkv=3,sq=5070,skv=5070,d=256,causal=0,dtype=fp16 b=8,hq=24,hkv=3,sq=348,skv=348,d=256,causal=1,dtype=fp16"
HOPPER_PROBLEMS="$problems" HOPPER_CONFIGS="default" BENCH_ROUNDS=2 \
  timeout 540 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz p && rm -rf p results.tgz
