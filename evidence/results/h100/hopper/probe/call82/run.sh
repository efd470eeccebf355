#!/usr/bin/env bash
# probe/call82: (1) the AOT table re-exported on the H100 for this session's kernel sources (the combine kernel
# and the reference changed for d=256, so the sources digest did): scripts/gpu_production.sh export, its
# tuned_attention.h to be committed as examples/tuned_attention.h. (2) d=256 on the H100 end to end: SDPA
# flash and cuDNN, a 48-trial search per problem (its first generation from the problem-aware default), the
# default and the search's winner benched in 3 rounds, summary.json: eight shapes measured in probe calls 77-79
# and three used nowhere before (GQA causal over 3000 keys, non-causal tails, a chunked causal prefill).
# Run from the repository root, build-device/ unpacked. Packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 200 scripts/gpu_production.sh build-device "$OUT/production" export
HOPPER_PROBLEMS="b=4,hq=16,hkv=16,sq=4096,skv=4096,d=256,causal=0,dtype=fp16 b=4,hq=16,hkv=16,sq=4096,skv=4096,d=256,causal=1,dtype=fp16 b=1,hq=16,hkv=8,sq=8192,skv=8192,d=256,causal=1,dtype=bf16 b=2,hq=8,hkv=8,sq=2048,skv=2048,d=256,causal=0,dtype=bf16 b=8,hq=16,hkv=16,sq=1024,skv=1024,d=256,causal=1,dtype=fp16 b=16,hq=8,hkv=8,sq=512,skv=512,d=256,causal=0,dtype=fp16 b=1,hq=8,hkv=8,sq=512,skv=512,d=256,causal=0,dtype=fp16 b=16,hq=16,hkv=8,sq=1,skv=4096,d=256,causal=0,dtype=bf16 b=2,hq=16,hkv=8,sq=3000,skv=3000,d=256,causal=1,dtype=bf16 b=6,hq=12,hkv=12,sq=777,skv=777,d=256,causal=0,dtype=fp16 b=3,hq=8,hkv=4,sq=500,skv=2000,d=256,causal=1,dtype=fp16" \
HOPPER_BUDGET=48 BENCH_ROUNDS=3 SEARCH_TIMEOUT=60 \
  timeout 540 scripts/gpu_hopper.sh build-device "$OUT/d256" machine sdpa search bench summary
cd "$OUT" && tar czf all.tgz production d256 && rm -rf production d256 results.tgz
