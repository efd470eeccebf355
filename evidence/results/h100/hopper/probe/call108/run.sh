#!/usr/bin/env bash
# probe/call108: skip_idle as a tunable (its default where a causal head's last tile leaves a warpgroup
# without rows). Every C++ GPU test (the idle-warpgroup cases among them; the AOT tests still read the
# header exported before the tunable); the AOT table re-exported for the new kernel sources digest; then
# eight causal shapes used nowhere before whose defaults take skip_idle, default against
# default,skip_idle=off, beside SDPA flash and cuDNN, each timed with cuDNN's batch, two rounds.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 270 scripts/gpu_hopper.sh build-device "$OUT/hopper" machine gpu_tests
timeout 120 scripts/gpu_production.sh build-device "$OUT/production" export
problems="b=4,hq=24,hkv=8,sq=3200,skv=3200,d=64,causal=1,dtype=bf16 b=2,hq=40,hkv=40,sq=2700,skv=2700,d=64,causal=1,dtype=fp16 b=8,hq=32,hkv=8,sq=1080,skv=1080,d=128,causal=1,dtype=bf16 b=2,hq=24,hkv=24,sq=3100,skv=3100,d=128,causal=1,dtype=fp16 b=3,hq=16,hkv=16,sq=4500,skv=4500,d=128,causal=1,dtype=fp16 b=2,hq=32,hkv=8,sq=300,skv=2300,d=128,causal=1,dtype=bf16 b=4,hq=8,hkv=8,sq=2100,skv=2100,d=256,causal=1,dtype=bf16 b=2,hq=16,hkv=4,sq=1560,skv=1560,d=256,causal=1,dtype=fp16"
HOPPER_PROBLEMS="$problems" HOPPER_CONFIGS="default;default,skip_idle=off" BENCH_ROUNDS=2 \
  timeout 190 scripts/gpu_hopper.sh build-device "$OUT/p" sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz hopper production p && rm -rf hopper production p results.tgz
