#!/usr/bin/env bash
# probe/call70: the stream-K scheduler (whole tiles a grid stride apart, the last round's K/V ranges cut
# evenly over the CTAs, partial rows merged in a workspace) on the short non-causal d=64 shapes still below
# cuDNN, whose busiest SMs hold about six 64-row tiles: 128x128 tiles one CTA per SM (overlap, pingpong),
# 64x64 three CTAs per SM, 64x128 two CTAs per SM, beside the default and the 128x128 walk; two shapes where
# the default leads as controls. Each problem timed with cuDNN's batch, 2 rounds. On the H100. Packed into
# $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
problems="b=6,hq=12,hkv=12,sq=640,skv=640,d=64,causal=0,dtype=fp16 b=12,hq=8,hkv=8,sq=512,skv=512,d=64,causal=0,dtype=bf16 b=3,hq=24,hkv=24,sq=640,skv=640,d=64,causal=0,dtype=bf16 b=2,hq=64,hkv=8,sq=512,skv=512,d=64,causal=0,dtype=fp16 b=32,hq=16,hkv=16,sq=384,skv=384,d=64,causal=0,dtype=bf16 b=16,hq=16,hkv=16,sq=512,skv=512,d=64,causal=0,dtype=fp16"
base="mma=wgmma,stages=2,barrier=light,smem_layout=swizzled,vec_bytes=16,q_frags=smem,qk_split=1,kv_warps=1,splits=1,combine=kernel,pack_gqa=off,q_buffers=1,rescale=lazy"
sk="$base,o_store=threads,scheduler=stream_k"
configs="default;$base,o_store=tma,scheduler=persistent,block_m=128,block_n=128,warps=12,min_ctas=1,overlap=on,pingpong=on,producer_regs=24"
configs+=";$sk,block_m=128,block_n=128,warps=12,min_ctas=1,overlap=on,pingpong=on,producer_regs=24"
configs+=";$sk,block_m=64,block_n=64,warps=8,min_ctas=3,overlap=off,pingpong=off,producer_regs=24"
configs+=";$sk,block_m=64,block_n=128,warps=8,min_ctas=2,overlap=off,pingpong=off,producer_regs=24"
HOPPER_PROBLEMS="$problems" HOPPER_CONFIGS="$configs" BENCH_ROUNDS=2 \
  timeout 400 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz p && rm -rf p results.tgz
