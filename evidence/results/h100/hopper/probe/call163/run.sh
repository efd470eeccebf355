#!/usr/bin/env bash
# probe/call163: the chunk-tail rule's key bound of 600 held out (draw_shapes.py -> shapes.txt; the prediction
# is written there): the four-CTA grid against the 128-row chunk config, both named (the configs, not the
# build's rules, are measured), two rounds beside SDPA, each side timed with cuDNN's batch.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
source evidence/results/h100/hopper/probe/call163/shapes.txt  # CHUNKS
w="mma=wgmma,o_store=tma,rescale=lazy"
HOPPER_PROBLEMS="$CHUNKS" timeout 60 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa | tail -2
HOPPER_PROBLEMS="$CHUNKS" BENCH_ROUNDS=2 HOPPER_CONFIGS="$w,block_m=64,block_n=64,stages=2,min_ctas=4,producer_regs=24,scheduler=grid;$w,block_m=128,block_n=128,stages=3,overlap=on,pingpong=on,producer_regs=32,scheduler=dynamic" \
  timeout 150 scripts/gpu_hopper.sh build-device "$OUT/p" probe | grep -v "^[12] b="
cd "$OUT" && tar czf all.tgz p && rm -rf p results.tgz
