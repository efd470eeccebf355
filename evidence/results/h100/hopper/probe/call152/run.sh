#!/usr/bin/env bash
# probe/call152, at the final tile_order rule (355d353): (1) the issue's summary again, as run_4e6b3ec made
# it (probe/call69): its six rows and four d=64 causal shapes (probe/call58's list), a 96-trial search each,
# the default and the search's winner benched in 3 rounds beside SDPA flash and cuDNN (the sdpa step first,
# each side timed with cuDNN's batch), summary.json; (2) the AOT example on its ten problems (call151's step
# ran out of time after five).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
HOPPER_PROBLEMS="$(grep -o 'HOPPER_PROBLEMS="[^"]*"' evidence/results/h100/hopper/probe/call58/run.sh | head -1 | cut -d'"' -f2)" \
HOPPER_BUDGET=96 BENCH_ROUNDS=3 SEARCH_TIMEOUT=50 \
  timeout 430 scripts/gpu_hopper.sh build-device "$OUT/run" machine sdpa search bench summary | tail -15
timeout 140 scripts/gpu_production.sh build-device "$OUT/production" example | tail -3
cd "$OUT" && tar czf all.tgz run production && rm -rf run production results.tgz
