#!/usr/bin/env bash
# probe/call95: what tma_half's smaller output tile (16 KiB at d=128 and 128 rows) makes room for at d=128,
# on the listed d=128 rows and two more: non-causal, the default's 160-key blocks with the whole output tile
# against 176-key blocks, and against a second Q buffer beside 144-key blocks (each fits only beside the half
# tile); causal, the default (two Q buffers, 128-key blocks, whole tile) against 144-key blocks with the half
# tile. cuDNN's batch, 3 rounds. Packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
nc="b=4,hq=16,hkv=16,sq=4096,skv=4096,d=128,causal=0,dtype=fp16 b=1,hq=40,hkv=8,sq=2048,skv=2048,d=128,causal=0,dtype=bf16 b=8,hq=16,hkv=16,sq=2048,skv=2048,d=128,causal=0,dtype=bf16"
HOPPER_PROBLEMS="$nc" HOPPER_CONFIGS="default;default,block_n=176,o_store=tma_half;default,q_buffers=2,block_n=144,o_store=tma_half" BENCH_ROUNDS=3 \
  timeout 200 scripts/gpu_hopper.sh build-device "$OUT/noncausal" sdpa probe | grep -v "^[123] b="
c="b=4,hq=16,hkv=16,sq=4096,skv=4096,d=128,causal=1,dtype=fp16 b=1,hq=32,hkv=8,sq=4096,skv=4096,d=128,causal=1,dtype=bf16 b=2,hq=32,hkv=4,sq=8192,skv=8192,d=128,causal=1,dtype=bf16"
HOPPER_PROBLEMS="$c" HOPPER_CONFIGS="default;default,block_n=144,o_store=tma_half" BENCH_ROUNDS=3 \
  timeout 200 scripts/gpu_hopper.sh build-device "$OUT/causal" sdpa probe | grep -v "^[123] b="
cd "$OUT" && tar czf all.tgz noncausal causal && rm -rf noncausal causal results.tgz
