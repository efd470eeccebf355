#!/usr/bin/env bash
# probe/call51: the issue's six rows and run_65fa2e4's four d=64 causal held-out shapes with the kernels of
# 11a0846 (stmatrix epilogue, tile decoding by host-made divisors) and the persistent 192-row rule of
# 525b268/b3fc087: a 96-trial search each, the default and the winner benched in 3 interleaved rounds, SDPA
# flash and cuDNN timed the same way, the summary; then the AOT table re-exported from these kernel sources.
# Run from the repository root, build-device/ unpacked.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
HOPPER_PROBLEMS="b=4,hq=16,hkv=16,sq=4096,skv=4096,d=128,causal=0,dtype=fp16 b=4,hq=16,hkv=16,sq=4096,skv=4096,d=128,causal=1,dtype=fp16 b=1,hq=32,hkv=8,sq=4096,skv=4096,d=128,causal=1,dtype=bf16 b=1,hq=8,hkv=8,sq=512,skv=512,d=64,causal=0,dtype=fp16 b=8,hq=16,hkv=16,sq=2048,skv=2048,d=64,causal=0,dtype=bf16 b=2,hq=32,hkv=4,sq=8192,skv=8192,d=128,causal=1,dtype=bf16 b=32,hq=8,hkv=8,sq=256,skv=256,d=64,causal=1,dtype=fp16 b=16,hq=16,hkv=16,sq=1024,skv=1024,d=64,causal=1,dtype=fp16 b=4,hq=32,hkv=8,sq=2048,skv=2048,d=64,causal=1,dtype=bf16 b=2,hq=24,hkv=24,sq=1536,skv=1536,d=64,causal=1,dtype=fp16" \
HOPPER_BUDGET=96 BENCH_ROUNDS=3 SEARCH_TIMEOUT=50 \
  timeout 420 scripts/gpu_hopper.sh build-device "$OUT/run" machine search bench sdpa summary
timeout 120 scripts/gpu_production.sh build-device "$OUT/p" export
