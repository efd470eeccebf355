#!/usr/bin/env bash
# probe/call191 (2026-11-27, eighth session): a decode survey at the lone-last-wave rule (draw_shapes.py ->
# shapes.txt; the predictions are written there), two rounds beside SDPA, each side timed with cuDNN's batch;
# then compute-sanitizer (memcheck, racecheck, synccheck) on a small causal tail shape run with the rule's
# config (the 16-row d=128 tile, two stages, 2 chunks merged by the combine kernel), which the rule itself
# gives only to grids of 264+ CTAs. Needs a build of 0ac4626 or later (DEVICE_PACK=cli is enough).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
source evidence/results/h100/hopper/probe/call191/shapes.txt  # DECODE MHA128
HOPPER_PROBLEMS="$DECODE $MHA128" BENCH_ROUNDS=2 HOPPER_CONFIGS="default" \
  timeout 240 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b=" | tail -3
SANITIZE_PROBLEM="b=2,hq=3,hkv=3,sq=5,skv=1500,d=128,causal=1,dtype=bf16" \
SANITIZE_CONFIG="mma=mma_sync,block_m=16,block_n=64,warps=4,stages=2,barrier=light,\
smem_layout=swizzled,vec_bytes=16,q_frags=regs,min_ctas=1,overlap=off,qk_split=1,\
kv_warps=4,splits=2,combine=kernel,pack_gqa=off,pingpong=off,producer_regs=none,\
scheduler=grid,q_buffers=1,o_store=threads,rescale=every,skip_idle=off,\
tile_order=heads" \
  timeout 200 scripts/gpu_hopper.sh build-device "$OUT/sanitize" sanitize | tail -4
cd "$OUT" && tar czf all.tgz p sanitize && rm -rf p sanitize results.tgz
