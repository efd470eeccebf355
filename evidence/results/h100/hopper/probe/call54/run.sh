#!/usr/bin/env bash
# probe/call54: where the d=64 bounds stand with 11a0846's kernels (call52: the four-CTA config won b4 hq32
# hkv8 s2048 causal by 6% over the 128-row default, the 192-row config b32 hq16 s384 by 3.7% and a 128-row
# config b2 hq8 s768 by 7%, all on the other side of the bounds of 525b268/db695c5). Causal d=64 from 2048
# to 8192 keys: the default (128 rows) and the four-CTA config (grid and dynamic scheduler); non-causal d=64
# below 768 keys: the default (four-CTA), the four-CTA config dynamic/grid, 192 rows persistent (the rule's
# config above 768), 128x144 persistent. 2 rounds each, SDPA beside. Everything packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
four="mma=wgmma,block_m=64,block_n=64,warps=8,stages=2,min_ctas=4,overlap=off,pingpong=off,producer_regs=24,q_buffers=1,o_store=tma,rescale=lazy"
r192="mma=wgmma,block_m=192,block_n=128,warps=16,stages=2,overlap=on,pingpong=on,producer_regs=32,scheduler=persistent,q_buffers=1,o_store=tma,rescale=lazy"
r128="mma=wgmma,block_m=128,block_n=144,warps=12,stages=2,overlap=on,pingpong=on,producer_regs=24,scheduler=persistent,q_buffers=1,o_store=tma,rescale=lazy"
HOPPER_PROBLEMS="b=4,hq=32,hkv=8,sq=2048,skv=2048,d=64,causal=1,dtype=bf16 b=2,hq=16,hkv=16,sq=2048,skv=2048,d=64,causal=1,dtype=fp16 b=8,hq=16,hkv=16,sq=2048,skv=2048,d=64,causal=1,dtype=fp16 b=1,hq=32,hkv=32,sq=3072,skv=3072,d=64,causal=1,dtype=fp16 b=2,hq=16,hkv=4,sq=4096,skv=4096,d=64,causal=1,dtype=bf16 b=1,hq=16,hkv=16,sq=8192,skv=8192,d=64,causal=1,dtype=fp16" \
HOPPER_CONFIGS="default;$four,scheduler=grid;$four,scheduler=dynamic" BENCH_ROUNDS=2 \
  timeout 250 scripts/gpu_hopper.sh build-device "$OUT/causal" machine probe sdpa
HOPPER_PROBLEMS="b=32,hq=16,hkv=16,sq=384,skv=384,d=64,causal=0,dtype=bf16 b=6,hq=12,hkv=12,sq=640,skv=640,d=64,causal=0,dtype=fp16 b=2,hq=8,hkv=8,sq=768,skv=768,d=64,causal=0,dtype=fp16 b=16,hq=16,hkv=16,sq=512,skv=512,d=64,causal=0,dtype=fp16 b=8,hq=32,hkv=8,sq=640,skv=640,d=64,causal=0,dtype=bf16 b=64,hq=8,hkv=8,sq=256,skv=256,d=64,causal=0,dtype=fp16 b=4,hq=8,hkv=8,sq=512,skv=512,d=64,causal=0,dtype=bf16" \
HOPPER_CONFIGS="default;$four,scheduler=grid;$four,scheduler=dynamic;$r192;$r128" BENCH_ROUNDS=2 \
  timeout 300 scripts/gpu_hopper.sh build-device "$OUT/short" probe sdpa
cd "$OUT" && tar czf all.tgz causal short && rm -rf causal short results.tgz
