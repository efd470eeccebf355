#!/usr/bin/env bash
# probe/call68: the short non-causal d=64 shapes still below cuDNN timed alike (about six 64-row tiles and
# three 192-row tiles per SM; b64 hq8 s256) against configs the rules do not give them: the 128x128 walk
# (one CTA per SM, overlap, pingpong), 128x64 tiles two CTAs per SM (dynamic), the four-CTA config at three
# CTAs per SM, and the default split in two (K/V halves merged by the combine kernel). Each problem timed
# with cuDNN's batch, 2 rounds. On the H100. Packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
problems="b=12,hq=8,hkv=8,sq=512,skv=512,d=64,causal=0,dtype=bf16 b=3,hq=24,hkv=24,sq=640,skv=640,d=64,causal=0,dtype=bf16 b=6,hq=12,hkv=12,sq=640,skv=640,d=64,causal=0,dtype=fp16 b=2,hq=64,hkv=8,sq=512,skv=512,d=64,causal=0,dtype=fp16 b=64,hq=8,hkv=8,sq=256,skv=256,d=64,causal=0,dtype=fp16 b=4,hq=32,hkv=8,sq=640,skv=640,d=64,causal=0,dtype=fp16 b=6,hq=12,hkv=12,sq=512,skv=512,d=64,causal=0,dtype=bf16"
base="mma=wgmma,stages=2,barrier=light,smem_layout=swizzled,vec_bytes=16,q_frags=smem,qk_split=1,kv_warps=1,splits=1,combine=kernel,pack_gqa=off,q_buffers=1,o_store=tma,rescale=lazy"
walk128="$base,block_m=128,block_n=128,warps=12,min_ctas=1,overlap=on,pingpong=on,producer_regs=24,scheduler=persistent"
two="$base,block_m=128,block_n=64,warps=12,min_ctas=2,overlap=off,pingpong=off,producer_regs=24,scheduler=dynamic"
three="$base,block_m=64,block_n=64,warps=8,min_ctas=3,overlap=off,pingpong=off,producer_regs=24,scheduler=dynamic"
HOPPER_PROBLEMS="$problems" HOPPER_CONFIGS="default;$walk128;$two;$three;default,splits=2" BENCH_ROUNDS=2 \
  timeout 400 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz p && rm -rf p results.tgz
