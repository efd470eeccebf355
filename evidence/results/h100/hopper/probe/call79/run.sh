#!/usr/bin/env bash
# probe/call79: d=256. (1) The short-range rule (mean keys a tile's queries see <= 1024: 64-key blocks, the
# dynamic scheduler; else 80-key blocks on the grid) held out: both configs on eight shapes not measured
# before, four on each side of the bound. (2) On the short shapes still below cuDNN in call78, 32-key blocks
# with the dynamic scheduler, alone, with the output tile (o_store=tma, which 32-key blocks leave room for),
# with a second Q buffer, and with three stages and the output tile. Each problem timed with cuDNN's batch,
# 2 rounds. Packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
B="mma=wgmma,block_m=128,stages=2,overlap=on,pingpong=on,producer_regs=24,rescale=lazy"
held="b=4,hq=32,hkv=8,sq=1280,skv=1280,d=256,causal=1,dtype=bf16 b=12,hq=16,hkv=16,sq=640,skv=640,d=256,causal=1,dtype=fp16 b=2,hq=16,hkv=16,sq=3000,skv=3000,d=256,causal=1,dtype=fp16 b=1,hq=32,hkv=16,sq=1024,skv=4096,d=256,causal=1,dtype=bf16 b=32,hq=8,hkv=8,sq=384,skv=384,d=256,causal=0,dtype=bf16 b=6,hq=12,hkv=12,sq=900,skv=900,d=256,causal=0,dtype=fp16 b=2,hq=16,hkv=4,sq=1500,skv=1500,d=256,causal=0,dtype=bf16 b=3,hq=16,hkv=16,sq=1100,skv=1100,d=256,causal=0,dtype=fp16"
HOPPER_PROBLEMS="$held" HOPPER_CONFIGS="$B,block_n=80;$B,block_n=64,scheduler=dynamic" BENCH_ROUNDS=2 \
  timeout 280 scripts/gpu_hopper.sh build-device "$OUT/heldout" sdpa probe | grep -v "^[12] b="
short="b=16,hq=8,hkv=8,sq=512,skv=512,d=256,causal=1,dtype=fp16 b=8,hq=16,hkv=16,sq=1024,skv=1024,d=256,causal=1,dtype=fp16 b=32,hq=8,hkv=4,sq=768,skv=768,d=256,causal=1,dtype=fp16 b=16,hq=8,hkv=8,sq=512,skv=512,d=256,causal=0,dtype=fp16"
configs="default;$B,block_n=32,scheduler=dynamic;$B,block_n=32,scheduler=dynamic,o_store=tma;$B,block_n=32,scheduler=dynamic,q_buffers=2;$B,block_n=32,stages=3,scheduler=dynamic,o_store=tma"
HOPPER_PROBLEMS="$short" HOPPER_CONFIGS="$configs" BENCH_ROUNDS=2 \
  timeout 250 scripts/gpu_hopper.sh build-device "$OUT/short" sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz heldout short && rm -rf heldout short results.tgz
