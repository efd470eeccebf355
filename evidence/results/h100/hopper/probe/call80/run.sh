#!/usr/bin/env bash
# probe/call80: o_store=regs (new: each consumer thread stores its accumulators' element pairs to O, so the
# Q buffer is free after the tile's last Q.K^T without o_store=tma's output tile, which d=256 tiles cannot
# fit). First the wgmma GPU tests and the d=256 one (both now cover o_store=regs). Then on d=256 shapes,
# mostly short ranges where call78/79 left the default below cuDNN: the default (128x64 dynamic over short
# ranges, 128x80 grid over long ones) with o_store=threads and with regs, and 128x80 on the grid with regs.
# Each problem timed with cuDNN's batch, 2 rounds. Packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
mkdir -p "$OUT/tests"
timeout 200 build-device/tests/evotune_tests --gtest_color=no --gtest_filter='GpuAttention.Wgmma*:GpuAttention.HeadDim256*' \
  >"$OUT/tests/wgmma_tests.txt" 2>&1
grep -E "^\[  (PASSED|FAILED) |^\[       OK|Failure" "$OUT/tests/wgmma_tests.txt" | head -20
B="mma=wgmma,block_m=128,stages=2,overlap=on,pingpong=on,producer_regs=24,rescale=lazy"
problems="b=16,hq=8,hkv=8,sq=512,skv=512,d=256,causal=1,dtype=fp16 b=12,hq=16,hkv=16,sq=640,skv=640,d=256,causal=1,dtype=fp16 b=32,hq=8,hkv=4,sq=768,skv=768,d=256,causal=1,dtype=fp16 b=8,hq=16,hkv=16,sq=1024,skv=1024,d=256,causal=1,dtype=fp16 b=4,hq=32,hkv=8,sq=1280,skv=1280,d=256,causal=1,dtype=bf16 b=32,hq=8,hkv=8,sq=384,skv=384,d=256,causal=0,dtype=bf16 b=16,hq=8,hkv=8,sq=512,skv=512,d=256,causal=0,dtype=fp16 b=4,hq=16,hkv=16,sq=2048,skv=2048,d=256,causal=1,dtype=bf16 b=4,hq=16,hkv=16,sq=4096,skv=4096,d=256,causal=0,dtype=fp16"
HOPPER_PROBLEMS="$problems" HOPPER_CONFIGS="default;default,o_store=regs;$B,block_n=80,o_store=regs" BENCH_ROUNDS=2 \
  timeout 330 scripts/gpu_hopper.sh build-device "$OUT/d256" sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz tests d256 && rm -rf tests d256 results.tgz
