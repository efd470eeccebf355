#!/usr/bin/env bash
# probe/call155: call153's two d=64 classes below cuDNN, measured on random shapes of each (draw_shapes.py ->
# shapes.txt) before any rule: two rounds beside SDPA, each side timed with cuDNN's batch.
#   chunks/: unpacked chunks of 17-64 queries (default: the four-CTA 64-row grid) against the four-CTA
#     config on the dynamic scheduler and the 128-row chunk config of 65-127 queries (three slots, dynamic).
#   longnc/: non-causal prefill over 1025+ keys whose default is the 192-row grid (o_store=threads) against
#     the same grid with o_store=tma, the 192-row walk, 128-row tiles on the persistent walk, and the four-CTA
#     config on the dynamic scheduler.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
source evidence/results/h100/hopper/probe/call155/shapes.txt  # CHUNKS, LONGNC
w="mma=wgmma,o_store=tma,rescale=lazy"
four="$w,block_m=64,block_n=64,stages=2,min_ctas=4,producer_regs=24,scheduler=dynamic"
HOPPER_PROBLEMS="$CHUNKS $LONGNC" timeout 110 scripts/gpu_hopper.sh build-device "$OUT/chunks" machine sdpa | tail -2
mkdir -p "$OUT/longnc/hopper" && cp "$OUT"/chunks/hopper/sdpa.* "$OUT/longnc/hopper/"
HOPPER_PROBLEMS="$CHUNKS" BENCH_ROUNDS=2 HOPPER_CONFIGS="default;$four;$w,block_m=128,block_n=128,stages=3,overlap=on,pingpong=on,producer_regs=32,scheduler=dynamic" \
  timeout 170 scripts/gpu_hopper.sh build-device "$OUT/chunks" probe | grep -v "^[12] b="
HOPPER_PROBLEMS="$LONGNC" BENCH_ROUNDS=2 HOPPER_CONFIGS="default;default,o_store=tma;default,scheduler=persistent,o_store=tma;$w,block_m=128,block_n=128,stages=2,overlap=on,pingpong=on,producer_regs=32,scheduler=persistent;$four" \
  timeout 250 scripts/gpu_hopper.sh build-device "$OUT/longnc" probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz chunks longnc && rm -rf chunks longnc results.tgz
