#!/usr/bin/env bash
# probe/call56: small grids at d=64 (call55: where 128-row tiles are no more than the SMs, 128x128 tiles
# with overlap and pingpong beat the four-CTA default by 11-50%), and the two held-out shapes of call55 far
# below cuDNN (b16 hq8 s384, 768 tiles of 64 rows: 1.45 rounds of the four-CTA slots; b1 hq8 s2048 causal):
# the default, the four-CTA config (grid, dynamic), 128x128 persistent and dynamic with overlap and
# pingpong, and the small-grid config with overlap; 2 rounds each, SDPA beside. Packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
four="mma=wgmma,block_m=64,block_n=64,warps=8,stages=2,min_ctas=4,overlap=off,pingpong=off,producer_regs=24,q_buffers=1,o_store=tma,rescale=lazy"
r128="mma=wgmma,block_m=128,block_n=128,warps=12,stages=2,overlap=on,pingpong=on,producer_regs=24,q_buffers=1,o_store=tma,rescale=lazy"
small="mma=wgmma,block_m=64,block_n=128,warps=8,stages=3,min_ctas=1,overlap=on,pingpong=off,producer_regs=none,scheduler=grid,q_buffers=1,o_store=threads,rescale=lazy"
HOPPER_PROBLEMS="b=2,hq=16,hkv=16,sq=512,skv=512,d=64,causal=0,dtype=fp16 b=1,hq=16,hkv=16,sq=1024,skv=1024,d=64,causal=0,dtype=bf16 b=2,hq=8,hkv=8,sq=1000,skv=1000,d=64,causal=0,dtype=fp16 b=3,hq=8,hkv=8,sq=640,skv=640,d=64,causal=0,dtype=bf16 b=1,hq=32,hkv=32,sq=512,skv=512,d=64,causal=0,dtype=fp16 b=4,hq=8,hkv=8,sq=768,skv=768,d=64,causal=0,dtype=fp16 b=16,hq=8,hkv=8,sq=384,skv=384,d=64,causal=0,dtype=fp16 b=1,hq=8,hkv=8,sq=2048,skv=2048,d=64,causal=1,dtype=fp16 b=1,hq=12,hkv=12,sq=1024,skv=1024,d=64,causal=1,dtype=bf16 b=2,hq=4,hkv=4,sq=2048,skv=2048,d=64,causal=1,dtype=fp16" \
HOPPER_CONFIGS="default;$four,scheduler=grid;$four,scheduler=dynamic;$r128,scheduler=persistent;$r128,scheduler=dynamic;$small" BENCH_ROUNDS=2 \
  timeout 420 scripts/gpu_hopper.sh build-device "$OUT/s" machine probe sdpa
cd "$OUT" && tar czf all.tgz s && rm -rf s results.tgz
