#!/usr/bin/env bash
# probe/call55: the d=64 bounds moved by call54 (causal four-CTA config up to 2048 keys; non-causal four-CTA
# config dynamic where its tiles are more than four per SM, else a grid), on twelve shapes none of which chose
# them: the new default (build-device/cli/evotune) against the old (build-device/base/evotune, 77538f5: the
# same kernels), 3 interleaved rounds; SDPA beside. Then a candidate for small grids (128-row tiles no more
# than the SMs): the default against 128x144 and 128x128 persistent with overlap and pingpong, 2 rounds.
# Run from the repository root, build-device/ unpacked. Everything packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
here=evidence/results/h100/hopper/probe/call55
mkdir -p "$OUT/v"
mapfile -t c <"$here/cases.txt"
ROUNDS=3 REPS=300 timeout 260 scripts/ab_builds.sh "$OUT/v/ab_bounds.txt" \
  "old=build-device/base/evotune,new=build-device/cli/evotune" "${c[@]}"
problems=""; for x in "${c[@]}"; do problems+="${x%%|*} "; done
HOPPER_PROBLEMS="$problems" timeout 60 scripts/gpu_hopper.sh build-device "$OUT/v/ab" machine sdpa
w="mma=wgmma,warps=12,stages=2,overlap=on,pingpong=on,producer_regs=24,scheduler=persistent,q_buffers=1,o_store=tma,rescale=lazy"
HOPPER_PROBLEMS="b=2,hq=16,hkv=16,sq=512,skv=512,d=64,causal=0,dtype=fp16 b=1,hq=16,hkv=16,sq=1024,skv=1024,d=64,causal=0,dtype=bf16 b=2,hq=8,hkv=8,sq=1000,skv=1000,d=64,causal=0,dtype=fp16 b=3,hq=8,hkv=8,sq=640,skv=640,d=64,causal=0,dtype=bf16 b=4,hq=8,hkv=8,sq=768,skv=768,d=64,causal=0,dtype=fp16" \
HOPPER_CONFIGS="default;$w,block_m=128,block_n=144;$w,block_m=128,block_n=128" BENCH_ROUNDS=2 \
  timeout 150 scripts/gpu_hopper.sh build-device "$OUT/v/small" probe sdpa
cd "$OUT" && tar czf all.tgz v && rm -rf v results.tgz
