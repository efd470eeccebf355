#!/usr/bin/env bash
# probe/call47: on the kernels of c1abbef (df74e34's tree): 160-trial searches of four short d=64 shapes
# (the first generation seeded from both sides of the d=64 short-range bound, heuristic_alternatives), bench
# of default and winner, SDPA, summary; then the production checks: the AOT example on the committed
# header, every C++ GPU test, the PyTorch op's GPU tests. Run from the repository root, build-device/ unpacked.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
R=/tmp/call47; mkdir -p "$R"
pack() { tar czf "$OUT/results.tgz" -C "$R" .; }
OUT= HOPPER_PROBLEMS="b=2,hq=24,hkv=24,sq=1536,skv=1536,d=64,causal=1,dtype=fp16 b=4,hq=16,hkv=16,sq=1024,skv=1024,d=64,causal=0,dtype=fp16 b=16,hq=8,hkv=8,sq=896,skv=896,d=64,causal=0,dtype=bf16 b=8,hq=16,hkv=16,sq=768,skv=768,d=64,causal=0,dtype=bf16" \
  HOPPER_BUDGET=160 SEARCH_TIMEOUT=100 BENCH_ROUNDS=2 timeout 300 \
  scripts/gpu_hopper.sh build-device "$R/h" machine search bench sdpa summary; pack
OUT= timeout 260 scripts/gpu_production.sh build-device "$R/p" machine example gpu_tests torch_tests; pack
