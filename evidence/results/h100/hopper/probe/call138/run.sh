#!/usr/bin/env bash
# probe/call138: (1) decode steps over short K/V ranges with tens of CTAs or more unsplit: the default's
# split count against 1, 2, 4 and 8 chunks; (2) packed d=64 short chunks where 192-row tiles take fewer tiles
# than 128-row ones: the default against both tile heights. Two rounds beside SDPA, each side timed with
# cuDNN's batch (draw_shapes.py).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
HOPPER_PROBLEMS="b=15,hq=48,hkv=6,sq=1,skv=831,d=128,causal=1,dtype=bf16 b=6,hq=64,hkv=64,sq=4,skv=1410,d=128,causal=1,dtype=bf16 b=56,hq=40,hkv=5,sq=1,skv=519,d=128,causal=1,dtype=fp16 b=15,hq=40,hkv=5,sq=4,skv=608,d=256,causal=0,dtype=bf16 b=29,hq=64,hkv=8,sq=2,skv=1757,d=256,causal=0,dtype=bf16 b=61,hq=48,hkv=12,sq=2,skv=1376,d=64,causal=1,dtype=bf16 b=31,hq=24,hkv=3,sq=2,skv=1123,d=128,causal=0,dtype=fp16 b=51,hq=40,hkv=10,sq=4,skv=522,d=128,causal=1,dtype=bf16" BENCH_ROUNDS=2 \
  HOPPER_CONFIGS="default;default,splits=1;default,splits=2;default,splits=4;default,splits=8" \
  timeout 200 scripts/gpu_hopper.sh build-device "$OUT/dec" machine sdpa probe | grep -v "^[12] b="
HOPPER_PROBLEMS="b=54,hq=32,hkv=8,sq=116,skv=4183,d=64,causal=0,dtype=fp16 b=25,hq=32,hkv=4,sq=73,skv=10658,d=64,causal=0,dtype=bf16 b=42,hq=64,hkv=8,sq=53,skv=4396,d=64,causal=0,dtype=bf16 b=57,hq=8,hkv=2,sq=122,skv=2632,d=64,causal=0,dtype=bf16" BENCH_ROUNDS=2 HOPPER_CONFIGS="default;default,block_m=192;default,block_m=128" \
  timeout 150 scripts/gpu_hopper.sh build-device "$OUT/pad" sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz dec pad && rm -rf dec pad results.tgz
