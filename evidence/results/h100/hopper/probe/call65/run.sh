#!/usr/bin/env bash
# probe/call65: the rounds rule of call64 held out: eleven short non-causal d=64 shapes it moves to the
# 192-row walk and four it leaves on the four-CTA config, none used to make it; the default, the four-CTA
# config and the 192-row walk by name, each problem timed with cuDNN's batch, 2 rounds. On the H100.
# Packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
problems="b=4,hq=32,hkv=8,sq=384,skv=384,d=64,causal=0,dtype=bf16 b=8,hq=16,hkv=16,sq=384,skv=384,d=64,causal=0,dtype=bf16 b=48,hq=8,hkv=8,sq=384,skv=384,d=64,causal=0,dtype=fp16 b=10,hq=12,hkv=12,sq=384,skv=384,d=64,causal=0,dtype=fp16 b=40,hq=8,hkv=8,sq=320,skv=320,d=64,causal=0,dtype=fp16 b=4,hq=24,hkv=8,sq=384,skv=384,d=64,causal=0,dtype=fp16 b=5,hq=16,hkv=16,sq=576,skv=576,d=64,causal=0,dtype=fp16 b=36,hq=8,hkv=8,sq=384,skv=384,d=64,causal=0,dtype=bf16 b=1,hq=64,hkv=8,sq=640,skv=640,d=64,causal=0,dtype=fp16 b=2,hq=40,hkv=8,sq=512,skv=512,d=64,causal=0,dtype=bf16 b=96,hq=8,hkv=8,sq=192,skv=192,d=64,causal=0,dtype=fp16 b=14,hq=8,hkv=8,sq=448,skv=448,d=64,causal=0,dtype=bf16 b=3,hq=24,hkv=24,sq=640,skv=640,d=64,causal=0,dtype=bf16 b=12,hq=12,hkv=12,sq=320,skv=320,d=64,causal=0,dtype=fp16 b=7,hq=16,hkv=16,sq=448,skv=448,d=64,causal=0,dtype=fp16"
base="mma=wgmma,stages=2,barrier=light,smem_layout=swizzled,vec_bytes=16,q_frags=smem,qk_split=1,kv_warps=1,splits=1,combine=kernel,pack_gqa=off,q_buffers=1,o_store=tma,rescale=lazy"
four="$base,block_m=64,block_n=64,warps=8,min_ctas=4,overlap=off,pingpong=off,producer_regs=24,scheduler=dynamic"
walk="$base,block_m=192,block_n=128,warps=16,min_ctas=1,overlap=on,pingpong=on,producer_regs=32,scheduler=persistent"
HOPPER_PROBLEMS="$problems" HOPPER_CONFIGS="default;$four;$walk" BENCH_ROUNDS=2 \
  timeout 400 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz p && rm -rf p results.tgz
