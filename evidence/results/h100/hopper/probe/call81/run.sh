#!/usr/bin/env bash
# probe/call81: o_store=regs at d=64 and d=128: the six rows and three short d=64 shapes near cuDNN,
# the problem-aware default against it with o_store=regs, and with regs and a second Q buffer (which the
# output tile's shared memory had kept out beside 160-key blocks; invalid on the grid). Each problem timed
# with cuDNN's batch, 2 rounds. Packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
problems="b=4,hq=16,hkv=16,sq=4096,skv=4096,d=128,causal=0,dtype=fp16 b=4,hq=16,hkv=16,sq=4096,skv=4096,d=128,causal=1,dtype=fp16 b=1,hq=32,hkv=8,sq=4096,skv=4096,d=128,causal=1,dtype=bf16 b=1,hq=8,hkv=8,sq=512,skv=512,d=64,causal=0,dtype=fp16 b=8,hq=16,hkv=16,sq=2048,skv=2048,d=64,causal=0,dtype=bf16 b=2,hq=32,hkv=4,sq=8192,skv=8192,d=128,causal=1,dtype=bf16 b=6,hq=12,hkv=12,sq=640,skv=640,d=64,causal=0,dtype=fp16 b=12,hq=8,hkv=8,sq=512,skv=512,d=64,causal=0,dtype=bf16 b=2,hq=32,hkv=32,sq=2560,skv=2560,d=64,causal=1,dtype=fp16"
HOPPER_PROBLEMS="$problems" HOPPER_CONFIGS="default;default,o_store=regs;default,o_store=regs,q_buffers=2" BENCH_ROUNDS=2 \
  timeout 500 scripts/gpu_hopper.sh build-device "$OUT/d64_d128" sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz d64_d128 && rm -rf d64_d128 results.tgz
