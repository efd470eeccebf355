#!/usr/bin/env bash
# probe/call87: after the small-grid rule's generalization: the wgmma GPU tests (their small-grid defaults now
# include d=128 and d=256 ones) and the d=256 test; then the d=128 shapes the new rule moves over the shortest
# ranges (128-512 keys, and 2048 keys on few heads), the new default against the 64-row config it replaces.
# Each problem timed with cuDNN's batch, 2 rounds. Packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
mkdir -p "$OUT/tests"
timeout 200 build-device/tests/evotune_tests --gtest_color=no --gtest_filter='GpuAttention.Wgmma*:GpuAttention.HeadDim256*' \
  >"$OUT/tests/wgmma_tests.txt" 2>&1
grep -E "^\[  (PASSED|FAILED) |^\[       OK|Failure" "$OUT/tests/wgmma_tests.txt" | head -20
short="b=16,hq=8,hkv=8,sq=128,skv=128,d=128,causal=0,dtype=fp16 b=8,hq=16,hkv=16,sq=128,skv=128,d=128,causal=1,dtype=fp16 b=4,hq=16,hkv=16,sq=256,skv=256,d=128,causal=0,dtype=fp16 b=2,hq=32,hkv=4,sq=256,skv=256,d=128,causal=1,dtype=fp16 b=2,hq=16,hkv=16,sq=384,skv=384,d=128,causal=1,dtype=fp16 b=1,hq=8,hkv=8,sq=2048,skv=2048,d=128,causal=0,dtype=bf16"
HOPPER_PROBLEMS="$short" HOPPER_CONFIGS="default;mma=wgmma,block_m=64,block_n=128,stages=3,overlap=on,rescale=lazy" BENCH_ROUNDS=2 \
  timeout 200 scripts/gpu_hopper.sh build-device "$OUT/d128" sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz tests d128 && rm -rf tests d128 results.tgz
