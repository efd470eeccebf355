#!/usr/bin/env bash
# probe/call134: short query chunks (48-127 queries) that fed4e4b's rule leaves to the mma.sync path (MHA, or
# a group that does not divide 64; draw_shapes.py, plus call133's two MHA shapes below cuDNN): the
# mma.sync default against wgmma configs of 128- and 64-row tiles, per head dim, two rounds beside SDPA,
# each side timed with cuDNN's batch.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
d64="b=58,hq=12,hkv=2,sq=48,skv=7404,d=64,causal=1,dtype=fp16 b=5,hq=24,hkv=8,sq=96,skv=709,d=64,causal=1,dtype=bf16 b=26,hq=28,hkv=28,sq=80,skv=512,d=64,causal=0,dtype=bf16 b=55,hq=28,hkv=28,sq=48,skv=696,d=64,causal=0,dtype=fp16 b=40,hq=32,hkv=32,sq=127,skv=1265,d=64,causal=0,dtype=bf16"
d128="b=5,hq=48,hkv=48,sq=64,skv=13896,d=128,causal=1,dtype=fp16 b=56,hq=28,hkv=28,sq=127,skv=9341,d=128,causal=0,dtype=bf16 b=58,hq=12,hkv=12,sq=48,skv=13595,d=128,causal=1,dtype=bf16 b=50,hq=12,hkv=12,sq=112,skv=1794,d=128,causal=1,dtype=bf16"
d256="b=64,hq=32,hkv=32,sq=96,skv=4385,d=256,causal=0,dtype=fp16 b=25,hq=32,hkv=32,sq=48,skv=686,d=256,causal=0,dtype=bf16 b=53,hq=24,hkv=24,sq=96,skv=4853,d=256,causal=1,dtype=bf16 b=20,hq=48,hkv=8,sq=80,skv=6773,d=256,causal=1,dtype=bf16 b=53,hq=28,hkv=28,sq=64,skv=13692,d=256,causal=0,dtype=fp16"
c64="default;mma=wgmma,rescale=lazy,q_buffers=1,block_m=128,block_n=128,stages=2,overlap=on,pingpong=on,producer_regs=32,scheduler=dynamic,o_store=tma;mma=wgmma,rescale=lazy,q_buffers=1,block_m=64,block_n=128,stages=3,overlap=on,pingpong=off,producer_regs=none,scheduler=grid,o_store=tma;mma=wgmma,rescale=lazy,q_buffers=1,block_m=64,block_n=64,stages=2,overlap=off,pingpong=off,producer_regs=24,min_ctas=4,scheduler=grid,o_store=tma;mma=wgmma,rescale=lazy,q_buffers=1,block_m=64,block_n=128,stages=2,overlap=on,pingpong=off,producer_regs=24,min_ctas=2,scheduler=dynamic,o_store=tma"
c128="default;mma=wgmma,rescale=lazy,q_buffers=1,block_m=128,block_n=128,stages=2,overlap=on,pingpong=on,producer_regs=24,scheduler=dynamic,o_store=tma;mma=wgmma,rescale=lazy,q_buffers=1,block_m=64,block_n=128,stages=3,overlap=on,pingpong=off,producer_regs=none,scheduler=grid,o_store=tma;mma=wgmma,rescale=lazy,q_buffers=1,block_m=64,block_n=64,stages=2,overlap=on,pingpong=off,producer_regs=24,min_ctas=2,scheduler=dynamic,o_store=tma;mma=wgmma,rescale=lazy,q_buffers=1,block_m=128,block_n=160,stages=2,overlap=on,pingpong=on,producer_regs=24,scheduler=dynamic,o_store=tma"
c256="default;mma=wgmma,rescale=lazy,q_buffers=1,block_m=128,block_n=64,stages=2,overlap=on,pingpong=on,producer_regs=24,scheduler=dynamic,o_store=tma_half;mma=wgmma,rescale=lazy,q_buffers=1,block_m=128,block_n=80,stages=2,overlap=on,pingpong=on,producer_regs=24,scheduler=grid,o_store=threads;mma=wgmma,rescale=lazy,q_buffers=1,block_m=64,block_n=64,stages=3,overlap=on,pingpong=off,producer_regs=none,scheduler=grid,o_store=threads;mma=wgmma,rescale=lazy,q_buffers=1,block_m=64,block_n=64,stages=2,overlap=on,pingpong=off,producer_regs=none,scheduler=dynamic,o_store=tma_half"
HOPPER_PROBLEMS="$d64 $d128 $d256" timeout 100 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa | tail -3
for d in 64 128 256; do
  problems="d$d" configs="c$d"
  mkdir -p "$OUT/d$d/hopper" && cp "$OUT/p/hopper/sdpa.csv" "$OUT/d$d/hopper/"
  HOPPER_PROBLEMS="${!problems}" HOPPER_CONFIGS="${!configs}" BENCH_ROUNDS=2 \
    timeout 160 scripts/gpu_hopper.sh build-device "$OUT/d$d" probe | grep -v "^[12] b="
done
cd "$OUT" && tar czf all.tgz p d64 d128 d256 && rm -rf p d64 d128 d256 results.tgz
