#!/usr/bin/env bash
# probe/call128: packed GQA for non-causal defaults where it cuts the tiles on the busiest SM (with_packed_gqa),
# held out: sixteen shapes drawn for it (draw_shapes.py: eight d=64, eight d=128), then call127's five GQA
# shapes that it packs (b14 hq32 hkv8 s1024 made the rule); the default against the same default unpacked,
# two rounds beside SDPA, each side timed with cuDNN's batch. Then the wgmma GPU tests (with the packed
# defaults' new cases).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
HOPPER_PROBLEMS="b=15,hq=40,hkv=10,sq=1984,skv=1984,d=64,causal=0,dtype=bf16 b=23,hq=8,hkv=4,sq=1044,skv=1044,d=64,causal=0,dtype=fp16 b=40,hq=24,hkv=12,sq=204,skv=204,d=64,causal=0,dtype=fp16 b=9,hq=32,hkv=8,sq=3113,skv=3113,d=64,causal=0,dtype=fp16 b=14,hq=8,hkv=2,sq=196,skv=196,d=64,causal=0,dtype=fp16 b=19,hq=48,hkv=24,sq=1422,skv=1422,d=64,causal=0,dtype=fp16 b=11,hq=28,hkv=14,sq=586,skv=2344,d=64,causal=0,dtype=bf16 b=24,hq=28,hkv=14,sq=1792,skv=1792,d=64,causal=0,dtype=bf16 b=31,hq=8,hkv=1,sq=416,skv=416,d=128,causal=0,dtype=bf16 b=60,hq=16,hkv=4,sq=224,skv=224,d=128,causal=0,dtype=fp16 b=31,hq=24,hkv=6,sq=207,skv=828,d=128,causal=0,dtype=bf16 b=4,hq=48,hkv=12,sq=2513,skv=2513,d=128,causal=0,dtype=bf16 b=41,hq=8,hkv=2,sq=1600,skv=1600,d=128,causal=0,dtype=fp16 b=45,hq=32,hkv=4,sq=343,skv=343,d=128,causal=0,dtype=fp16 b=27,hq=48,hkv=6,sq=909,skv=909,d=128,causal=0,dtype=fp16 b=31,hq=8,hkv=2,sq=1344,skv=1344,d=128,causal=0,dtype=fp16 b=14,hq=32,hkv=8,sq=1024,skv=1024,d=64,causal=0,dtype=bf16 b=3,hq=64,hkv=16,sq=1024,skv=1024,d=64,causal=0,dtype=fp16 b=61,hq=8,hkv=2,sq=1024,skv=1024,d=64,causal=0,dtype=bf16 b=5,hq=32,hkv=16,sq=990,skv=990,d=64,causal=0,dtype=bf16 b=52,hq=8,hkv=2,sq=1022,skv=1022,d=64,causal=0,dtype=bf16" \
  BENCH_ROUNDS=2 HOPPER_CONFIGS="default;default,pack_gqa=off" \
  timeout 400 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b="
timeout 180 scripts/gpu_hopper.sh build-device "$OUT/tests" wgmma_tests
cd "$OUT" && tar czf all.tgz p tests && rm -rf p tests results.tgz
