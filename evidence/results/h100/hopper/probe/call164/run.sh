#!/usr/bin/env bash
# probe/call164, at e0c430b's rules: (1) call163's lead held out (the chunk-tail rule's shapes by the size of
# the four-CTA grid's last round): the four-CTA grid against the 128-row chunk config, both named; (2) decode
# over 8000-32000 keys that splits: the default against other split counts and a deeper ring; both two rounds
# beside SDPA, each side timed with cuDNN's batch (draw_shapes.py -> shapes.txt, predictions there);
# (3) compute-sanitizer on the default's small causal GQA tail shape; (4) every C++ GPU test and the PyTorch
# op's GPU tests at this build (none ran after the 600-key bound, 384f6f5).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
source evidence/results/h100/hopper/probe/call164/shapes.txt  # LONG SHORT DECODE
w="mma=wgmma,o_store=tma,rescale=lazy"
HOPPER_PROBLEMS="$LONG $SHORT $DECODE" timeout 60 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa | tail -2
HOPPER_PROBLEMS="$LONG $SHORT" BENCH_ROUNDS=2 HOPPER_CONFIGS="$w,block_m=64,block_n=64,stages=2,min_ctas=4,producer_regs=24,scheduler=grid;$w,block_m=128,block_n=128,stages=3,overlap=on,pingpong=on,producer_regs=32,scheduler=dynamic" \
  timeout 120 scripts/gpu_hopper.sh build-device "$OUT/p" probe | grep -v "^[12] b="
mkdir -p "$OUT/d/hopper" && cp "$OUT/p/hopper/sdpa.csv" "$OUT/d/hopper/"  # the decode rows' own folder
HOPPER_PROBLEMS="$DECODE" BENCH_ROUNDS=2 HOPPER_CONFIGS="default;default,splits=8;default,splits=12;default,splits=24;default,splits=32;default,stages=4" \
  timeout 120 scripts/gpu_hopper.sh build-device "$OUT/d" probe | grep -v "^[12] b="
timeout 90 scripts/gpu_hopper.sh build-device "$OUT/sanitize" sanitize
timeout 230 scripts/gpu_hopper.sh build-device "$OUT/tests" gpu_tests
timeout 70 scripts/gpu_production.sh build-device "$OUT/production" torch_tests | tail -4
cd "$OUT" && tar czf all.tgz p d sanitize tests production && rm -rf p d sanitize tests production results.tgz
