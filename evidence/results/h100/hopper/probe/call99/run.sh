#!/usr/bin/env bash
# probe/call99: the rule call98 led to (non-causal d=128 grids just past one wave take one wave of 192-row
# tiles of 64-key blocks) held out on eight shapes used nowhere before, chosen before this call: the new
# default against the previous one (128x160 dynamic, output tile), cuDNN's batch, 2 rounds; and the wgmma GPU
# test with its two new cases (GQA with query tails, sq < skv) for that default. Packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
mkdir -p "$OUT/tests"
timeout 150 build-device/tests/evotune_tests --gtest_color=no --gtest_filter='GpuAttention.WgmmaMatchesTheReference' \
  >"$OUT/tests/wgmma_tests.txt" 2>&1
echo "wgmma tests: exit $?"; grep -E "^\[  (PASSED|FAILED) |^\[  FAILED|Failure" "$OUT/tests/wgmma_tests.txt" | head -20
p="b=2,hq=20,hkv=4,sq=448,skv=448,d=128,causal=0,dtype=fp16 b=1,hq=28,hkv=4,sq=640,skv=640,d=128,causal=0,dtype=fp16 b=4,hq=8,hkv=8,sq=700,skv=700,d=128,causal=0,dtype=bf16 b=5,hq=8,hkv=2,sq=512,skv=512,d=128,causal=0,dtype=fp16 b=1,hq=64,hkv=8,sq=300,skv=300,d=128,causal=0,dtype=fp16 b=1,hq=20,hkv=20,sq=1000,skv=1000,d=128,causal=0,dtype=fp16 b=1,hq=17,hkv=17,sq=1100,skv=1100,d=128,causal=0,dtype=bf16 b=2,hq=16,hkv=4,sq=520,skv=1500,d=128,causal=0,dtype=bf16"
HOPPER_PROBLEMS="$p" HOPPER_CONFIGS="default;mma=wgmma,block_m=128,block_n=160,stages=2,overlap=on,pingpong=on,producer_regs=24,scheduler=dynamic,o_store=tma,rescale=lazy" BENCH_ROUNDS=2 \
  timeout 200 scripts/gpu_hopper.sh build-device "$OUT/heldout" sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz tests heldout && rm -rf tests heldout results.tgz
