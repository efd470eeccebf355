#!/usr/bin/env bash
# probe/call154: what the space has for call153's two non-causal d=64 shapes below cuDNN (no rule yet): the
# default against the 128-row chunk config (three slots, dynamic), the four-CTA config on the dynamic
# scheduler, 64x128 tiles two CTAs per SM, and (the 586-query one) 128-row tiles on the persistent walk with
# o_store=tma; two rounds beside SDPA, each side timed with cuDNN's batch.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
P="b=51,hq=12,hkv=12,sq=48,skv=3430,d=64,causal=0,dtype=bf16 b=21,hq=28,hkv=28,sq=586,skv=1172,d=64,causal=0,dtype=bf16"
w="mma=wgmma,o_store=tma,rescale=lazy"
HOPPER_PROBLEMS="$P" timeout 40 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa | tail -2
HOPPER_PROBLEMS="$P" BENCH_ROUNDS=2 HOPPER_CONFIGS="default;$w,block_m=128,block_n=128,stages=3,overlap=on,pingpong=on,producer_regs=32,scheduler=dynamic;$w,block_m=64,block_n=64,stages=2,min_ctas=4,producer_regs=24,scheduler=dynamic;$w,block_m=64,block_n=128,stages=2,min_ctas=2,producer_regs=24,overlap=on,scheduler=dynamic;$w,block_m=128,block_n=128,stages=2,overlap=on,pingpong=on,producer_regs=32,scheduler=persistent" \
  timeout 120 scripts/gpu_hopper.sh build-device "$OUT/p" probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz p && rm -rf p results.tgz
