#!/usr/bin/env bash
# probe/call67: the third bound (the 192-row walk where the four-CTA config has at least three times its
# tiles per SM and the walk at most four) held out: nine short non-causal d=64 shapes it moves to the walk
# and four near it that it leaves (tiles per SM 5 and 2, 13 and 5, 8 and 3), none used before; the
# default, the four-CTA config and the walk by name, each problem timed with cuDNN's batch, 2 rounds. On
# the H100.
# Packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
problems="b=6,hq=20,hkv=20,sq=384,skv=384,d=64,causal=0,dtype=fp16 b=31,hq=8,hkv=8,sq=384,skv=384,d=64,causal=0,dtype=bf16 b=11,hq=24,hkv=8,sq=384,skv=384,d=64,causal=0,dtype=fp16 b=10,hq=8,hkv=8,sq=576,skv=576,d=64,causal=0,dtype=bf16 b=15,hq=8,hkv=8,sq=384,skv=384,d=64,causal=0,dtype=fp16 b=3,hq=64,hkv=8,sq=384,skv=384,d=64,causal=0,dtype=bf16 b=2,hq=64,hkv=8,sq=576,skv=576,d=64,causal=0,dtype=fp16 b=21,hq=8,hkv=8,sq=576,skv=576,d=64,causal=0,dtype=fp16 b=16,hq=8,hkv=8,sq=576,skv=576,d=64,causal=0,dtype=bf16 b=7,hq=12,hkv=12,sq=448,skv=448,d=64,causal=0,dtype=fp16 b=2,hq=48,hkv=8,sq=384,skv=384,d=64,causal=0,dtype=bf16 b=9,hq=20,hkv=20,sq=576,skv=576,d=64,causal=0,dtype=fp16 b=16,hq=12,hkv=12,sq=320,skv=320,d=64,causal=0,dtype=bf16"
base="mma=wgmma,stages=2,barrier=light,smem_layout=swizzled,vec_bytes=16,q_frags=smem,qk_split=1,kv_warps=1,splits=1,combine=kernel,pack_gqa=off,q_buffers=1,o_store=tma,rescale=lazy"
four="$base,block_m=64,block_n=64,warps=8,min_ctas=4,overlap=off,pingpong=off,producer_regs=24,scheduler=dynamic"
walk="$base,block_m=192,block_n=128,warps=16,min_ctas=1,overlap=on,pingpong=on,producer_regs=32,scheduler=persistent"
HOPPER_PROBLEMS="$problems" HOPPER_CONFIGS="default;$four;$walk" BENCH_ROUNDS=2 \
  timeout 400 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz p && rm -rf p results.tgz
