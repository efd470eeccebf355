#!/usr/bin/env bash
# probe/call156: the long-range padding rule held out, and the chunk tail measured (draw_shapes.py ->
# shapes.txt); two rounds beside SDPA, each side timed with cuDNN's batch.
#   held/: HELDOUT and FOURS, the rule's build against the one before it (build-base, 5b28957), defaults.
#   grids/: GRIDS (the 192-row walk's wave bound not met, defaults unmoved): the default against its
#     o_store=tma, the 192-row walk and the four-CTA config on the dynamic scheduler.
#   tails/: TAILS, the four-CTA grid default against the 128-row chunk config of 65-127 queries.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
source evidence/results/h100/hopper/probe/call156/shapes.txt  # HELDOUT FOURS GRIDS TAILS
w="mma=wgmma,o_store=tma,rescale=lazy"
four="$w,block_m=64,block_n=64,stages=2,min_ctas=4,producer_regs=24,scheduler=dynamic"
HOPPER_PROBLEMS="$HELDOUT $FOURS $GRIDS $TAILS" timeout 110 scripts/gpu_hopper.sh build-device "$OUT/held" machine sdpa | tail -2
for d in grids tails; do mkdir -p "$OUT/$d/hopper" && cp "$OUT"/held/hopper/sdpa.* "$OUT/$d/hopper/"; done
HOPPER_PROBLEMS="$HELDOUT $FOURS" BASE_BUILD=build-base BENCH_ROUNDS=2 HOPPER_CONFIGS=default \
  timeout 150 scripts/gpu_hopper.sh build-device "$OUT/held" probe | grep -v "^[12] b="
HOPPER_PROBLEMS="$GRIDS" BENCH_ROUNDS=2 HOPPER_CONFIGS="default;default,o_store=tma;default,block_m=192,producer_regs=32,scheduler=persistent,o_store=tma;$four" \
  timeout 120 scripts/gpu_hopper.sh build-device "$OUT/grids" probe | grep -v "^[12] b="
HOPPER_PROBLEMS="$TAILS" BENCH_ROUNDS=2 HOPPER_CONFIGS="default;$w,block_m=128,block_n=128,stages=3,overlap=on,pingpong=on,producer_regs=32,scheduler=dynamic" \
  timeout 170 scripts/gpu_hopper.sh build-device "$OUT/tails" probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz held grids tails && rm -rf held grids tails results.tgz
