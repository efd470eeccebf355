#!/usr/bin/env bash
# probe/call142: (1) held out, build against build: fourteen short query chunks of 17-64 queries whose
# default the rule change after 241959c moves (short_chunk_unpacked from 17 queries; d=128's 64-row chunk
# tiles two CTAs per SM), this build's default against 241959c's (build-base, scripts/device_pack.sh);
# (2) non-causal prefill at d=256 (up to 4096 keys) and d=128, and two causal d=256 shapes, whose default
# walks tiles on the dynamic scheduler: default against scheduler=persistent (call141: b64 hq16 sq256 skv512
# d256 279.0 us against 291.8); (3) MHA chunks of 65-127 queries at d=64: default against stages=3 (call141:
# b26 hq28 sq80 skv512 43.9 against 45.1). Shapes from draw_shapes.py (shapes.txt). Two rounds beside SDPA,
# each side timed with cuDNN's batch.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
source evidence/results/h100/hopper/probe/call142/shapes.txt  # HELD, SCHED, MHA
HOPPER_PROBLEMS="$HELD $SCHED $MHA" timeout 70 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa | tail -2
for part in held sched mha; do
  mkdir -p "$OUT/$part/hopper" && cp "$OUT/p/hopper/sdpa.csv" "$OUT/$part/hopper/"
done
BASE_BUILD=build-base HOPPER_PROBLEMS="$HELD" HOPPER_CONFIGS=default BENCH_ROUNDS=2 \
  timeout 200 scripts/gpu_hopper.sh build-device "$OUT/held" probe | grep -v "^[12] b="
HOPPER_PROBLEMS="$SCHED" HOPPER_CONFIGS="default;default,scheduler=persistent" BENCH_ROUNDS=2 \
  timeout 200 scripts/gpu_hopper.sh build-device "$OUT/sched" probe | grep -v "^[12] b="
HOPPER_PROBLEMS="$MHA" HOPPER_CONFIGS="default;default,stages=3" BENCH_ROUNDS=2 \
  timeout 80 scripts/gpu_hopper.sh build-device "$OUT/mha" probe | grep -v "^[12] b="
cat build-base/source_commit.txt
cd "$OUT" && tar czf all.tgz p held sched mha && rm -rf p held sched mha results.tgz
