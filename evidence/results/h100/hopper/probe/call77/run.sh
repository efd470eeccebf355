#!/usr/bin/env bash
# probe/call77: head dim 256 on the H100, the first timings: SDPA flash and cuDNN, then the d=256 default
# (128x80 tiles, both overlaps, grid) against 64-key blocks, each overlap off, and the dynamic scheduler
# (64-key blocks, or 80 without overlap: what fits its registers) on five prefill shapes; on a small grid
# (64x64 tiles, three stages) and a decode step (mma_sync, split) the default against two stages. Each
# problem timed with cuDNN's batch, 2 rounds. First, GpuAttention.HeadDim256MatchesTheReference again (in
# call76 its decode default of 32 rows spilled; Q's fragments now stay in shared memory at d=256).
# Packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
mkdir -p "$OUT/test"
timeout 120 build-device/tests/evotune_tests --gtest_color=no --gtest_filter='GpuAttention.HeadDim256*' >"$OUT/test/head_dim_256.txt" 2>&1
grep -E "^\[  (PASSED|FAILED) |Failure" "$OUT/test/head_dim_256.txt"
big="b=4,hq=16,hkv=16,sq=4096,skv=4096,d=256,causal=0,dtype=fp16 b=4,hq=16,hkv=16,sq=4096,skv=4096,d=256,causal=1,dtype=fp16 b=1,hq=16,hkv=8,sq=8192,skv=8192,d=256,causal=1,dtype=bf16 b=2,hq=8,hkv=8,sq=2048,skv=2048,d=256,causal=0,dtype=bf16 b=8,hq=16,hkv=16,sq=1024,skv=1024,d=256,causal=1,dtype=fp16"
configs="default;default,block_n=64;default,overlap=off;default,pingpong=off;default,block_n=64,scheduler=dynamic;default,overlap=off,scheduler=dynamic"
HOPPER_PROBLEMS="$big" HOPPER_CONFIGS="$configs" BENCH_ROUNDS=2 \
  timeout 400 scripts/gpu_hopper.sh build-device "$OUT/big" sdpa probe | grep -v "^[12] b="
small="b=1,hq=8,hkv=8,sq=512,skv=512,d=256,causal=0,dtype=fp16 b=16,hq=16,hkv=8,sq=1,skv=4096,d=256,causal=0,dtype=bf16"
configs="default;default,stages=2"
HOPPER_PROBLEMS="$small" HOPPER_CONFIGS="$configs" BENCH_ROUNDS=2 \
  timeout 150 scripts/gpu_hopper.sh build-device "$OUT/small" sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz test big small && rm -rf test big small results.tgz
