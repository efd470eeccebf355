#!/usr/bin/env bash
# probe/call143: (1) held out, build against build: the two rules after 40f9415 (non-causal d=256 prefill on
# the persistent walk; d=64's 128-row chunk tiles three stages deep), fourteen shapes whose default they
# move (draw_shapes.py -> shapes.txt), this build's default against 40f9415's (build-base); (2) non-causal
# d=128 prefill, default (dynamic) against scheduler=persistent, four shapes; two rounds beside SDPA, each
# side timed with cuDNN's batch; (3) compute-sanitizer on a causal d=128 chunk of 21 queries with tails, the
# default (64-row tiles, two CTAs per SM, the dynamic scheduler: the chunk rule of effeee9).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
source evidence/results/h100/hopper/probe/call143/shapes.txt  # HELD, SCHED
HOPPER_PROBLEMS="$HELD $SCHED" timeout 60 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa | tail -2
for part in held sched; do
  mkdir -p "$OUT/$part/hopper" && cp "$OUT/p/hopper/sdpa.csv" "$OUT/$part/hopper/"
done
BASE_BUILD=build-base HOPPER_PROBLEMS="$HELD" HOPPER_CONFIGS=default BENCH_ROUNDS=2 \
  timeout 220 scripts/gpu_hopper.sh build-device "$OUT/held" probe | grep -v "^[12] b="
HOPPER_PROBLEMS="$SCHED" HOPPER_CONFIGS="default;default,scheduler=persistent" BENCH_ROUNDS=2 \
  timeout 80 scripts/gpu_hopper.sh build-device "$OUT/sched" probe | grep -v "^[12] b="
SANITIZE_PROBLEM="b=12,hq=12,hkv=12,sq=21,skv=333,d=128,causal=1,dtype=bf16" \
  timeout 200 scripts/gpu_hopper.sh build-device "$OUT/sanitize_chunk" sanitize
cat build-base/source_commit.txt
cd "$OUT" && tar czf all.tgz p held sched sanitize_chunk && rm -rf p held sched sanitize_chunk results.tgz
