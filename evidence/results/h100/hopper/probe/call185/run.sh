#!/usr/bin/env bash
# probe/call185 (2026-11-27, seventh session), after c0d2b14 (draw_shapes.py -> shapes.txt; the predictions are
# written there): compute-sanitizer synccheck on call184's small grid of the one-wave split config (its run
# there was cut by the script's limit); SPLIT16 and WHOLE16, the 55% bound's holdout, the default against
# unsplit, 3 and 8 chunks; BIMODAL, one survey shape in six bench processes. Two rounds beside SDPA, each side
# timed with cuDNN's batch. Needs a build of c0d2b14 or later (DEVICE_PACK=cli is enough).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
source evidence/results/h100/hopper/probe/call185/shapes.txt  # SPLIT16 WHOLE16
mkdir -p "$OUT/sanitize"
{ problem="b=2,hq=4,hkv=2,sq=3,skv=2500,d=256,causal=1,dtype=bf16"
  config="mma=mma_sync,block_m=16,block_n=64,warps=4,stages=3,barrier=light,smem_layout=swizzled,vec_bytes=16,\
q_frags=smem,min_ctas=1,overlap=off,qk_split=1,kv_warps=4,splits=2,combine=kernel,pack_gqa=on,pingpong=off,\
producer_regs=none,scheduler=grid,q_buffers=1,o_store=threads,rescale=every,skip_idle=off,tile_order=heads"
  echo "\$ compute-sanitizer --tool synccheck evotune bench --problem $problem --config $config"
  timeout 150 compute-sanitizer --tool synccheck --error-exitcode 9 build-device/cli/evotune bench \
    --problem "$problem" --config "$config" --no-baseline --reps 3
  echo "exit code $?"; } > "$OUT/sanitize/sanitize_synccheck.txt" 2>&1
grep -E "ERROR SUMMARY|exit code" "$OUT/sanitize/sanitize_synccheck.txt"
HOPPER_PROBLEMS="$SPLIT16 $WHOLE16" BENCH_ROUNDS=2 \
  HOPPER_CONFIGS="default;default,splits=1;default,splits=3;default,splits=8" \
  timeout 150 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b=" | tail -3
HOPPER_PROBLEMS="b=18,hq=24,hkv=3,sq=229,skv=229,d=64,causal=0,dtype=bf16" BENCH_ROUNDS=6 HOPPER_CONFIGS=default \
  timeout 60 scripts/gpu_hopper.sh build-device "$OUT/bimodal" machine sdpa probe | tail -2
cd "$OUT" && tar czf all.tgz sanitize p bimodal && rm -rf sanitize p bimodal results.tgz
