#!/usr/bin/env bash
# probe/call123: the causal d=64 four-CTA bound as narrowed (3072 keys only where a head's last 192-row tile
# leaves a warpgroup without rows) held out on eight shapes drawn for it (draw_shapes.py, seed 20261132),
# four on each side: the default, the four-CTA config and 192-row tiles with skip_idle on (the default
# before on the first four), beside SDPA, two rounds, each side timed with cuDNN's batch.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
problems="b=16,hq=16,hkv=16,sq=2573,skv=2573,d=64,causal=1,dtype=bf16 b=6,hq=48,hkv=6,sq=2881,skv=2881,d=64,causal=1,dtype=bf16 b=4,hq=24,hkv=3,sq=2133,skv=2133,d=64,causal=1,dtype=bf16 b=12,hq=40,hkv=5,sq=2125,skv=2125,d=64,causal=1,dtype=fp16 b=8,hq=40,hkv=40,sq=2459,skv=2459,d=64,causal=1,dtype=bf16 b=8,hq=12,hkv=12,sq=3072,skv=3072,d=64,causal=1,dtype=bf16 b=8,hq=40,hkv=20,sq=2078,skv=2078,d=64,causal=1,dtype=bf16 b=4,hq=40,hkv=40,sq=3065,skv=3065,d=64,causal=1,dtype=fp16"
four="mma=wgmma,block_m=64,block_n=64,warps=8,stages=2,overlap=off,pingpong=off,producer_regs=24,min_ctas=4,scheduler=grid,q_buffers=1,o_store=tma,rescale=lazy"
r192="mma=wgmma,block_m=192,block_n=128,warps=16,stages=2,overlap=on,pingpong=on,producer_regs=32,scheduler=dynamic,q_buffers=1,o_store=tma,rescale=lazy,skip_idle=on"
HOPPER_PROBLEMS="$problems" BENCH_ROUNDS=2 HOPPER_CONFIGS="default;$four;$r192" \
  timeout 400 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz p && rm -rf p results.tgz
