#!/usr/bin/env bash
# probe/call130: (1) packed GQA on causal d=64 192-row tiles, where probe/call129 found it ahead on both such
# shapes: six more drawn for it (draw_shapes.py), the default against the same default packed, two rounds
# beside SDPA, each side timed with cuDNN's batch. (2) At the code of with_packed_gqa: every C++ GPU test,
# compute-sanitizer memcheck, racecheck and synccheck on the packed persistent 192-row walk over a small GQA
# shape with query and key tails, the tuned_attention example on the AOT header (no NVRTC loaded) and the
# PyTorch op's GPU tests.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
HOPPER_PROBLEMS="b=33,hq=16,hkv=2,sq=3150,skv=3150,d=64,causal=1,dtype=fp16 b=12,hq=16,hkv=8,sq=4463,skv=4463,d=64,causal=1,dtype=bf16 b=7,hq=40,hkv=20,sq=3780,skv=3780,d=64,causal=1,dtype=fp16 b=18,hq=40,hkv=10,sq=917,skv=2752,d=64,causal=1,dtype=bf16 b=8,hq=32,hkv=8,sq=4672,skv=4672,d=64,causal=1,dtype=fp16 b=2,hq=28,hkv=7,sq=6080,skv=6080,d=64,causal=1,dtype=bf16" \
  BENCH_ROUNDS=2 HOPPER_CONFIGS="default;default,pack_gqa=on" \
  timeout 200 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b="
SANITIZE_PROBLEM="b=2,hq=8,hkv=2,sq=300,skv=333,d=64,causal=0,dtype=bf16" \
  SANITIZE_CONFIG="mma=wgmma,block_m=192,warps=16,block_n=128,stages=2,overlap=on,pingpong=on,producer_regs=32,scheduler=persistent,o_store=tma,rescale=lazy,pack_gqa=on" \
  timeout 400 scripts/gpu_hopper.sh build-device "$OUT/hopper" gpu_tests sanitize
timeout 250 scripts/gpu_production.sh build-device "$OUT/production" example torch_tests
cd "$OUT" && tar czf all.tgz p hopper production && rm -rf p hopper production results.tgz
