#!/usr/bin/env bash
# probe/call98: d=128 grids just past one wave (133-192 tiles of 128 rows on 132 SMs, so that the busiest SMs
# run two), where call89 left b1 hq36 hkv4 s512 at 0.907x cuDNN: 192-row tiles (three consumer warpgroups,
# 64-key blocks: the widest that does not spill at d=128) make them one wave of at most 132 CTAs at 1.5x the
# rows each, against the default's two rounds of 128. Six shapes in that class, the default against 192x64
# with two and three slots; cuDNN's batch, 2 rounds. Packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
p="b=1,hq=36,hkv=4,sq=512,skv=512,d=128,causal=0,dtype=fp16 b=1,hq=32,hkv=8,sq=600,skv=600,d=128,causal=0,dtype=bf16 b=2,hq=12,hkv=12,sq=800,skv=800,d=128,causal=1,dtype=fp16 b=1,hq=40,hkv=8,sq=512,skv=512,d=128,causal=1,dtype=bf16 b=3,hq=16,hkv=4,sq=384,skv=384,d=128,causal=0,dtype=fp16 b=1,hq=24,hkv=24,sq=900,skv=900,d=128,causal=0,dtype=bf16"
w="mma=wgmma,block_m=192,block_n=64,overlap=on,pingpong=on,producer_regs=24,rescale=lazy"
HOPPER_PROBLEMS="$p" HOPPER_CONFIGS="default;$w,stages=2;$w,stages=3" BENCH_ROUNDS=2 \
  timeout 200 scripts/gpu_hopper.sh build-device "$OUT/wave" sdpa probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz wave && rm -rf wave results.tgz
