#!/usr/bin/env bash
# probe/call94: head dim 256 end to end again at the final code (the eleven problems of run_d256_4c2b709, now
# with o_store=tma_half and the default that takes it): SDPA flash and cuDNN, a 48-trial search per problem,
# the default and the winner in 3 interleaved rounds, the summary. Into $OUT/d256, packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
HOPPER_PROBLEMS="b=4,hq=16,hkv=16,sq=4096,skv=4096,d=256,causal=0,dtype=fp16 b=4,hq=16,hkv=16,sq=4096,skv=4096,d=256,causal=1,dtype=fp16 b=1,hq=16,hkv=8,sq=8192,skv=8192,d=256,causal=1,dtype=bf16 b=2,hq=8,hkv=8,sq=2048,skv=2048,d=256,causal=0,dtype=bf16 b=8,hq=16,hkv=16,sq=1024,skv=1024,d=256,causal=1,dtype=fp16 b=16,hq=8,hkv=8,sq=512,skv=512,d=256,causal=0,dtype=fp16 b=1,hq=8,hkv=8,sq=512,skv=512,d=256,causal=0,dtype=fp16 b=16,hq=16,hkv=8,sq=1,skv=4096,d=256,causal=0,dtype=bf16 b=2,hq=16,hkv=8,sq=3000,skv=3000,d=256,causal=1,dtype=bf16 b=6,hq=12,hkv=12,sq=777,skv=777,d=256,causal=0,dtype=fp16 b=3,hq=8,hkv=4,sq=500,skv=2000,d=256,causal=1,dtype=fp16" \
HOPPER_BUDGET=48 BENCH_ROUNDS=3 SEARCH_TIMEOUT=60 \
  timeout 540 scripts/gpu_hopper.sh build-device "$OUT/d256" machine sdpa search bench summary
cd "$OUT" && tar czf all.tgz d256 && rm -rf d256 results.tgz
