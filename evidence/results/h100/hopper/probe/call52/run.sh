#!/usr/bin/env bash
# probe/call52: call51's script again (its summary files did not come back from the device: too many files,
# and no archive), then held-out shapes with the same build: heldout_d498a93's ten, the non-causal d=64 shapes
# of probe/call48-49 the 192-row rule was chosen and checked on, and two it never saw (b2 hq32 hkv8 s1000 bf16,
# 13% padding at 192 rows; b6 hq12 s640 fp16); a 48-trial search each, the default and the winner in 3
# interleaved rounds, SDPA flash and cuDNN. Everything is packed into $OUT/all.tgz.
# Run from the repository root, build-device/ unpacked.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
bash evidence/results/h100/hopper/probe/call51/run.sh
HOPPER_PROBLEMS="b=2,hq=16,hkv=16,sq=3000,skv=3000,d=128,causal=1,dtype=fp16 b=1,hq=40,hkv=8,sq=2048,skv=2048,d=128,causal=0,dtype=bf16 b=1,hq=16,hkv=16,sq=16384,skv=16384,d=128,causal=1,dtype=bf16 b=2,hq=32,hkv=8,sq=512,skv=4096,d=128,causal=1,dtype=bf16 b=3,hq=12,hkv=12,sq=777,skv=777,d=64,causal=0,dtype=bf16 b=16,hq=8,hkv=8,sq=512,skv=512,d=64,causal=1,dtype=fp16 b=8,hq=16,hkv=4,sq=384,skv=384,d=64,causal=1,dtype=bf16 b=8,hq=16,hkv=16,sq=768,skv=768,d=64,causal=1,dtype=fp16 b=64,hq=8,hkv=8,sq=256,skv=256,d=64,causal=0,dtype=fp16 b=8,hq=16,hkv=16,sq=768,skv=768,d=64,causal=0,dtype=bf16 b=4,hq=16,hkv=16,sq=1024,skv=1024,d=64,causal=0,dtype=fp16 b=16,hq=8,hkv=8,sq=896,skv=896,d=64,causal=0,dtype=bf16 b=4,hq=32,hkv=8,sq=1536,skv=1536,d=64,causal=0,dtype=bf16 b=2,hq=16,hkv=16,sq=1280,skv=1280,d=64,causal=0,dtype=fp16 b=32,hq=16,hkv=16,sq=384,skv=384,d=64,causal=0,dtype=bf16 b=2,hq=8,hkv=8,sq=768,skv=768,d=64,causal=0,dtype=fp16 b=2,hq=32,hkv=8,sq=1000,skv=1000,d=64,causal=0,dtype=bf16 b=6,hq=12,hkv=12,sq=640,skv=640,d=64,causal=0,dtype=fp16" \
HOPPER_BUDGET=48 BENCH_ROUNDS=3 SEARCH_TIMEOUT=40 \
  timeout 300 scripts/gpu_hopper.sh build-device "$OUT/heldout" machine search bench sdpa summary
cd "$OUT" && tar czf all.tgz run p heldout && rm -rf run p heldout results.tgz
