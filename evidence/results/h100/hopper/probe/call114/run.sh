#!/usr/bin/env bash
# probe/call114: the non-causal d=128 block-width rule (noncausal_d128_block_n, from call113) held out: twelve
# non-causal d=128 shapes drawn at random (draw_shapes.py, seed 20261128; four for each width the rule picks;
# one that the 192-row wave rule takes instead replaced by the small grid b1 hq8 hkv2 s1500) and the small
# grid b1 hq32 hkv8 s512 bf16 whose default moves from 160 to 128: the default against each of 160, 144 and
# 128 keys per block, beside SDPA, two rounds, each side timed with cuDNN's batch. Then the wgmma GPU test
# (its new cases: the default with 144- and 128-key blocks).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
problems="b=1,hq=64,hkv=64,sq=3018,skv=3018,d=128,causal=0,dtype=bf16 b=1,hq=48,hkv=12,sq=6374,skv=9561,d=128,causal=0,dtype=bf16 b=3,hq=12,hkv=3,sq=5347,skv=5347,d=128,causal=0,dtype=bf16 b=54,hq=8,hkv=8,sq=449,skv=449,d=128,causal=0,dtype=bf16 b=1,hq=40,hkv=20,sq=3700,skv=3700,d=128,causal=0,dtype=fp16 b=34,hq=48,hkv=48,sq=329,skv=658,d=128,causal=0,dtype=bf16 b=24,hq=8,hkv=2,sq=1862,skv=1862,d=128,causal=0,dtype=bf16 b=8,hq=48,hkv=6,sq=385,skv=385,d=128,causal=0,dtype=bf16 b=16,hq=24,hkv=12,sq=1502,skv=1502,d=128,causal=0,dtype=bf16 b=38,hq=48,hkv=48,sq=215,skv=322,d=128,causal=0,dtype=bf16 b=9,hq=16,hkv=16,sq=242,skv=242,d=128,causal=0,dtype=bf16 b=1,hq=8,hkv=2,sq=1500,skv=1500,d=128,causal=0,dtype=fp16 b=1,hq=32,hkv=8,sq=512,skv=512,d=128,causal=0,dtype=bf16"
HOPPER_PROBLEMS="$problems" BENCH_ROUNDS=2 \
HOPPER_CONFIGS="default;default,block_n=160,producer_regs=24;default,block_n=144,producer_regs=24;default,block_n=128,producer_regs=32" \
  timeout 420 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b="
timeout 150 scripts/gpu_hopper.sh build-device "$OUT/tests" wgmma_tests
cd "$OUT" && tar czf all.tgz p tests && rm -rf p tests results.tgz
