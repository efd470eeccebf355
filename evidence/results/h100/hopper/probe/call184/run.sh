#!/usr/bin/env bash
# probe/call184 (2026-11-27, seventh session), after 8592c5a (draw_shapes.py -> shapes.txt; the predictions are
# written there): compute-sanitizer on a small grid of the config the one-wave rule gives b33 hq4 hkv2 sq3
# skv2500 d256 causal bf16 (2 chunks; call183's racecheck of that shape ran past its limit); REFINE, the 80%
# bound's changes, against unsplit, 3 and 8 chunks; the twelfth survey and 24 random decode steps. Two rounds
# beside SDPA, each side timed with cuDNN's batch. Needs a build of 8592c5a or later (DEVICE_PACK=cli is enough).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
source evidence/results/h100/hopper/probe/call184/shapes.txt  # REFINE REFINE_OLD SURVEY DECODE
SANITIZE_PROBLEM="b=2,hq=4,hkv=2,sq=3,skv=2500,d=256,causal=1,dtype=bf16" \
SANITIZE_CONFIG="mma=mma_sync,block_m=16,block_n=64,warps=4,stages=3,barrier=light,smem_layout=swizzled,\
vec_bytes=16,q_frags=smem,min_ctas=1,overlap=off,qk_split=1,kv_warps=4,splits=2,combine=kernel,pack_gqa=on,\
pingpong=off,producer_regs=none,scheduler=grid,q_buffers=1,o_store=threads,rescale=every,skip_idle=off,\
tile_order=heads" timeout 120 scripts/gpu_hopper.sh build-device "$OUT/sanitize" sanitize | tail -4
HOPPER_PROBLEMS="$REFINE" BENCH_ROUNDS=2 HOPPER_CONFIGS="default;default,splits=1;default,splits=3;default,splits=8" \
  timeout 70 scripts/gpu_hopper.sh build-device "$OUT/refine" machine sdpa probe | grep -v "^[12] b="
HOPPER_PROBLEMS="$SURVEY $DECODE" HOPPER_CONFIGS=default BENCH_ROUNDS=2 \
  timeout 395 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b=" | tail -3
cd "$OUT" && tar czf all.tgz sanitize refine p && rm -rf sanitize refine p results.tgz
