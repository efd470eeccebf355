#!/usr/bin/env bash
# probe/call66: the rounds rule as revised after call65 (the 192-row walk where it needs no more rounds than
# the four-CTA config) held out: ten short non-causal d=64 shapes it moves to the walk and four with one round
# more that it leaves, none used before; the default, the four-CTA config and the walk by name, each
# problem timed with cuDNN's batch, 2 rounds. On the H100.
# Packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
problems="b=8,hq=16,hkv=16,sq=320,skv=320,d=64,causal=0,dtype=fp16 b=5,hq=24,hkv=8,sq=576,skv=576,d=64,causal=0,dtype=bf16 b=11,hq=12,hkv=12,sq=576,skv=576,d=64,causal=0,dtype=fp16 b=6,hq=12,hkv=12,sq=512,skv=512,d=64,causal=0,dtype=bf16 b=8,hq=24,hkv=8,sq=384,skv=384,d=64,causal=0,dtype=fp16 b=2,hq=64,hkv=8,sq=384,skv=384,d=64,causal=0,dtype=bf16 b=1,hq=64,hkv=8,sq=704,skv=704,d=64,causal=0,dtype=fp16 b=5,hq=20,hkv=20,sq=384,skv=384,d=64,causal=0,dtype=fp16 b=12,hq=16,hkv=16,sq=384,skv=384,d=64,causal=0,dtype=bf16 b=4,hq=16,hkv=16,sq=576,skv=576,d=64,causal=0,dtype=bf16 b=11,hq=16,hkv=16,sq=576,skv=576,d=64,causal=0,dtype=fp16 b=12,hq=16,hkv=16,sq=256,skv=256,d=64,causal=0,dtype=bf16 b=2,hq=64,hkv=8,sq=512,skv=512,d=64,causal=0,dtype=fp16 b=6,hq=24,hkv=8,sq=576,skv=576,d=64,causal=0,dtype=bf16"
base="mma=wgmma,stages=2,barrier=light,smem_layout=swizzled,vec_bytes=16,q_frags=smem,qk_split=1,kv_warps=1,splits=1,combine=kernel,pack_gqa=off,q_buffers=1,o_store=tma,rescale=lazy"
four="$base,block_m=64,block_n=64,warps=8,min_ctas=4,overlap=off,pingpong=off,producer_regs=24,scheduler=dynamic"
walk="$base,block_m=192,block_n=128,warps=16,min_ctas=1,overlap=on,pingpong=on,producer_regs=32,scheduler=persistent"
HOPPER_PROBLEMS="$problems" HOPPER_CONFIGS="default;$four;$walk" BENCH_ROUNDS=2 \
  timeout 400 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz p && rm -rf p results.tgz
